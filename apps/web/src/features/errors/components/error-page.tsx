import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { LinkButton } from '../../../components/button';
import { paths } from '../../../lib/paths';

/** /error?code=...: `error.{code}.title/details`, falling back to `error.fall_back`. */
export function ErrorPage() {
  const { t } = useTranslation();
  const [searchParams] = useSearchParams();
  const code = (searchParams.get('code') ?? '').replace(/[^A-Za-z0-9_-]/g, '');
  const keys = (part: 'title' | 'details') =>
    code === ''
      ? [`error.fall_back.${part}`]
      : [`error.${code}.${part}`, `error.fall_back.${part}`];
  // The feedback form is the deployment's own (branding, per language); none: no link.
  const feedbackUrl = t('dynamic:feedback_url', { defaultValue: '' });
  return (
    <div className="mx-auto w-full max-w-md px-4 py-8">
      <h1 className="text-2xl font-bold">{t(keys('title'))}</h1>
      <p className="mt-3 whitespace-pre-line text-stone-700">{t(keys('details'))}</p>
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
      <LinkButton to={paths.home.path} className="mt-4 w-full sm:w-auto">
        {t('error.return_home')}
      </LinkButton>
    </div>
  );
}
