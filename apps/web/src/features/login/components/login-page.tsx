import { useEffect, useRef, useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { Button } from '../../../components/button';
import { HeroImage } from '../../../components/hero-image';
import { TextField } from '../../../components/text-field';
import { ApiError, minutesToWait } from '../../../lib/api-client';
import { mtlsOrigin } from '../../../lib/hosts';
import { isPortalReachable } from '../../../lib/reachability';
import { reloadTo } from '../../../lib/navigation';
import { paths } from '../../../lib/paths';
import { clearStoredSession, STORAGE_KEYS, writeStored } from '../../../lib/storage-keys';
import { normalizeCode, validateLoginCode } from '../../../lib/validation';
import type { InviteRefusal } from '@callsign/contract';
import { useCheckCode } from '../api/login';
import { useLoginSession } from './login-session';

/**
 * /login: the one-time code. A `?code=` prefills the field (upper-cased) and submits it when
 * valid; only then does validation run on mount, change and blur.
 */
export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const urlCode = searchParams.get('code');
  const fromUrl = urlCode !== null;
  const session = useLoginSession();
  const checkCode = useCheckCode();
  const [code, setCode] = useState(() => normalizeCode(urlCode ?? ''));
  const [validating, setValidating] = useState(fromUrl);
  const [serverError, setServerError] = useState<string | null>(null);
  /** The code admits nobody: why ('wrong' when the portal knows no such code). */
  const [codeWrong, setCodeWrong] = useState<InviteRefusal | 'wrong' | null>(null);
  const autoSubmitted = useRef(false);

  const validationError = validateLoginCode(code);
  const fieldError = validating && validationError !== undefined ? t(validationError) : null;
  const shownError =
    fieldError ??
    serverError ??
    (codeWrong === null
      ? null
      : codeWrong === 'wrong'
        ? t('code-is-wrong')
        : t(`code_refused.${codeWrong}`));

  /** Runs the code check (no state is touched until the answer arrives). */
  const check = (value: string) => {
    checkCode.mutate(value, {
      onSuccess: (validity) => {
        if (validity.isAdminCodeValid) {
          session.verify(value, 'admin');
          void navigate(paths.loginCallsign.path);
        } else if (validity.isEnrollmentCodeValid) {
          session.verify(value, 'user', validity.reservedCallsign);
          void navigate(paths.loginCallsign.path);
        } else if (validity.renewalToken !== null) {
          // A renewal code: the member is signed in under their callsign, on to a new key.
          clearStoredSession();
          writeStored(STORAGE_KEYS.token, validity.renewalToken);
          reloadTo(paths.loginCreateMtls.path);
        } else {
          session.reset();
          setCodeWrong(validity.inviteRefusal ?? 'wrong');
        }
      },
      onError: (error) => {
        const wait = minutesToWait(error);
        setServerError(
          wait !== undefined
            ? t('errors.too_many_attempts', { count: wait })
            : error instanceof ApiError && error.detail !== undefined
              ? error.detail
              : isPortalReachable()
                ? 'Unknown error'
                : t('offline.no_connection'),
        );
      },
    });
  };

  useEffect(() => {
    if (!fromUrl || autoSubmitted.current) return;
    autoSubmitted.current = true;
    const initial = normalizeCode(urlCode);
    if (validateLoginCode(initial) === undefined) check(initial);
    // Runs once, on arrival with a code in the URL.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setValidating(true);
    if (validationError !== undefined || checkCode.isPending) return;
    setServerError(null);
    setCodeWrong(null);
    check(code);
  };

  return (
    <>
      <HeroImage />
      <div className="mx-auto w-full max-w-md px-4 py-6">
        <h1 className="text-2xl font-bold">{t('login.title')}</h1>
        <p className="mt-1 text-lg text-emerald-900">{t('dynamic:deployment_name')}</p>
        <p className="mt-3 text-stone-700">{t('login.intro')}</p>
        <form className="mt-6 flex flex-col gap-3" noValidate onSubmit={onSubmit}>
          <TextField
            label={t('login.code_label')}
            code
            name="code"
            value={code}
            autoComplete="one-time-code"
            autoCapitalize="characters"
            spellCheck={false}
            inputMode="text"
            error={
              shownError !== null && (
                <>
                  {shownError}
                  {serverError !== null && (
                    <span className="sr-only"> ({t('error-occurred')})</span>
                  )}
                </>
              )
            }
            onChange={(event) => {
              setCode(normalizeCode(event.target.value));
              setServerError(null);
              setCodeWrong(null);
            }}
            onBlur={() => {
              if (fromUrl) setValidating(true);
            }}
          />
          <Button
            type="submit"
            disabled={checkCode.isPending || (validating && validationError !== undefined)}
          >
            {checkCode.isPending ? t('login.submitting') : t('login.submit')}
          </Button>
        </form>
        <p className="mt-8 text-center">
          <a
            href={`${mtlsOrigin()}${paths.admin.home.path}/`}
            className="rounded text-emerald-900 underline underline-offset-4 focus-visible:outline-3 focus-visible:outline-amber-500"
          >
            {t('login.have_keys')}
          </a>
        </p>
      </div>
    </>
  );
}
