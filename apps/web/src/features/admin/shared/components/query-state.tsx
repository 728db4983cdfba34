import { useTranslation } from 'react-i18next';
import { errorText } from '../../../../lib/error-text';

/** A list's 'Loading...' or 'Error: {message}'; nothing once the data is there. */
export function QueryState({ isPending, error }: { isPending: boolean; error: unknown }) {
  const { t } = useTranslation();
  if (error !== null && error !== undefined) {
    return (
      <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
        {t('admin.list_error', { message: errorText(t, error) })}
      </p>
    );
  }
  if (isPending) {
    return (
      <p role="status" className="text-stone-700">
        {t('loading')}
      </p>
    );
  }
  return null;
}

/** What a finished action left to say: a success in green or a failure in red. */
export function Outcome({ outcome }: { outcome: { ok: boolean; text: string } | null }) {
  return (
    <p
      role="status"
      aria-live="polite"
      className={
        outcome === null
          ? 'sr-only'
          : `rounded-md p-3 ${outcome.ok ? 'bg-emerald-50 text-emerald-900' : 'bg-red-50 text-red-800'}`
      }
    >
      {outcome?.text ?? ''}
    </p>
  );
}
