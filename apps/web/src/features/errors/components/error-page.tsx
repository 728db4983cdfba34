import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { buttonClass, LinkButton } from '../../../components/button';
import { mtlsOrigin } from '../../../lib/hosts';
import { paths } from '../../../lib/paths';

/** Why the mTLS face sent a page here (`reason`, beside `code=mtls_fail`): docs/api.md. */
const MTLS_FAIL_REASONS = ['no_key', 'revoked', 'expired', 'refused'];

/** The error code of the address: `mtls_fail` with a known reason names the case. */
function errorCode(params: URLSearchParams): string {
  const code = (params.get('code') ?? '').replace(/[^A-Za-z0-9_-]/g, '');
  const reason = params.get('reason') ?? '';
  return code === 'mtls_fail' && MTLS_FAIL_REASONS.includes(reason) ? `${code}_${reason}` : code;
}

/** An approval link opened without a key (`next`): the same page on the mTLS face, or none. */
function withKey(params: URLSearchParams): string | null {
  const next = params.get('next') ?? '';
  return next.startsWith(`${paths.admin.approval.path}?`) || next === paths.admin.approval.path
    ? `${mtlsOrigin()}${next}`
    : null;
}

/**
 * /error?code=...: `error.{code}.title/details`, falling back to `error.fall_back`. The mTLS
 * face's `code=mtls_fail` says which case with `reason` (no key, revoked, expired, refused); an
 * approval link opened on the public face (`code=approval_link&next=`) offers the way to open it
 * with the key.
 */
export function ErrorPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const code = errorCode(searchParams);
  const keys = (part: 'title' | 'details') =>
    code === ''
      ? [`error.fall_back.${part}`]
      : [`error.${code}.${part}`, `error.fall_back.${part}`];
  const openWithKey = code === 'approval_link' ? withKey(searchParams) : null;
  // The feedback form is the deployment's own (branding, per language); none: no link.
  const feedbackUrl = t('dynamic:feedback_url', { defaultValue: '' });
  return (
    <div className="mx-auto w-full max-w-md px-4 py-8">
      <h1 className="text-2xl font-bold">{t(keys('title'))}</h1>
      <p className="mt-3 whitespace-pre-line text-stone-700">{t(keys('details'))}</p>
      {openWithKey !== null && (
        <a href={openWithKey} className={buttonClass('primary', 'mt-6 w-full sm:w-auto')}>
          {t('error.approval_link.open')}
        </a>
      )}
      {feedbackUrl !== '' && (
        <p className="mt-6">
          <a
            href={feedbackUrl}
            target="_blank"
            rel="noreferrer"
            className="inline-flex min-h-11 items-center rounded text-emerald-900 underline underline-offset-4 focus-visible:outline-3 focus-visible:outline-amber-500"
          >
            {t('error.feedback')}
          </a>
        </p>
      )}
      <LinkButton
        to={paths.home.path}
        variant={openWithKey === null ? 'primary' : 'secondary'}
        className="mt-4 w-full sm:w-auto"
      >
        {t('error.return_home')}
      </LinkButton>
    </div>
  );
}
