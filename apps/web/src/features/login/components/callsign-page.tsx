import { useRef, useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router';
import { Button } from '../../../components/button';
import { minutesToWait } from '../../../lib/api-client';
import { TextField } from '../../../components/text-field';
import { useSetGlobalLoading } from '../../../lib/global-loading';
import { reloadTo } from '../../../lib/navigation';
import { paths } from '../../../lib/paths';
import { STORAGE_KEYS, writeStored } from '../../../lib/storage-keys';
import { validateCallsign } from '../../../lib/validation';
import { callsignErrorKey, useAdminLogin, useEnroll, type AdminLoginCache } from '../api/login';
import { useLoginSession } from './login-session';

/** /login/callsign: pick a callsign; admins finish sign-in, members enroll. */
export function CallsignPage() {
  const { t } = useTranslation();
  const session = useLoginSession();
  const adminLogin = useAdminLogin();
  const enroll = useEnroll();
  const setLoading = useSetGlobalLoading();
  const adminCache = useRef<AdminLoginCache>({});
  // A bulk slip's code enrolls its own callsign only: filled in and fixed.
  const reserved = session.reservedCallsign ?? null;
  const [callsign, setCallsign] = useState(reserved ?? '');
  const [touched, setTouched] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);

  if (session.codeType === 'unknown') return <Navigate to={paths.login.path} replace />;

  const validationError = validateCallsign(callsign);
  const fieldError = touched && validationError !== undefined ? t(validationError) : null;
  const shownError = fieldError ?? submitError;
  const pending = adminLogin.isPending || enroll.isPending;

  const onFailure = (error: unknown) => {
    setLoading(false);
    const wait = minutesToWait(error);
    setSubmitError(
      wait === undefined
        ? t(callsignErrorKey(error))
        : t('errors.too_many_attempts', { count: wait }),
    );
  };

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if (validationError !== undefined || pending) return;
    setSubmitError(null);
    setLoading(true);
    if (session.codeType === 'admin') {
      adminLogin.mutate(
        { code: session.code, callsign, cache: adminCache.current },
        {
          onSuccess: (token) => {
            writeStored(STORAGE_KEYS.token, token);
            writeStored(STORAGE_KEYS.callsign, callsign);
            reloadTo(paths.loginCreateMtls.path);
          },
          onError: onFailure,
        },
      );
    } else {
      enroll.mutate(
        { code: session.code, callsign },
        {
          onSuccess: (answer) => {
            writeStored(STORAGE_KEYS.token, answer.jwt);
            writeStored(STORAGE_KEYS.approveCode, answer.approvecode);
            writeStored(STORAGE_KEYS.callsign, answer.callsign);
            reloadTo(paths.loginEnrollment.path);
          },
          onError: onFailure,
        },
      );
    }
  };

  return (
    <div className="mx-auto w-full max-w-md px-4 py-6">
      <h1 className="text-2xl font-bold">{t('callsign.title')}</h1>
      <p className="mt-3 text-stone-700">{t('callsign.intro')}</p>
      <form className="mt-6 flex flex-col gap-3" noValidate onSubmit={onSubmit}>
        <TextField
          label={t('callsign.label')}
          hint={t('callsign.hint')}
          error={shownError}
          name="callsign"
          value={callsign}
          readOnly={reserved !== null}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          onChange={(event) => {
            setCallsign(event.target.value);
            setTouched(true);
            setSubmitError(null);
          }}
          onBlur={() => {
            setTouched(true);
          }}
        />
        <Button type="submit" disabled={pending || (touched && validationError !== undefined)}>
          {pending ? t('callsign.submitting') : t('callsign.submit')}
        </Button>
      </form>
    </div>
  );
}
