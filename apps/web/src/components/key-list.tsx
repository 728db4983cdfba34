import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { KeyEntry } from '@callsign/contract';
import { formatDateTime } from '../lib/format';
import { keyName, keyState, keyStatus, keyTellApart } from '../lib/key-names';

function KeyRow({ keyEntry, action }: { keyEntry: KeyEntry; action?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const live = keyState(keyEntry) === 'live';
  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <p className="font-semibold break-words">
          {keyName(t, keyEntry, i18n.language)}
          {keyEntry.current && (
            <span className="ml-2 inline-block rounded bg-emerald-100 px-2 py-0.5 text-sm font-semibold text-emerald-900">
              {t('keys.current')}
            </span>
          )}
        </p>
        <p className="text-sm text-stone-700">{keyTellApart(t, keyEntry, i18n.language)}</p>
        <p className={live ? 'text-stone-700' : 'text-stone-600'}>
          {keyStatus(t, keyEntry, i18n.language)}
        </p>
        {keyEntry.made_by !== null && (
          <>
            <p className="text-sm text-stone-700">
              {t('keys.made_by', { callsign: keyEntry.made_by })}
            </p>
            <p className="text-sm text-stone-700">{t('keys.member_key')}</p>
          </>
        )}
        {keyEntry.last_checked_at !== null && (
          <p className="text-sm text-stone-700">
            {keyEntry.last_checked_from === undefined || keyEntry.last_checked_from === null
              ? t('keys.last_checked', {
                  when: formatDateTime(keyEntry.last_checked_at, i18n.language),
                })
              : t('keys.last_checked_from', {
                  address: keyEntry.last_checked_from,
                  when: formatDateTime(keyEntry.last_checked_at, i18n.language),
                })}
          </p>
        )}
      </div>
      {live && action}
    </li>
  );
}

/**
 * A member's keys: the live ones first, each with the action the page gives
 * it (revoke), then the revoked and expired ones folded away. Used by the member's own key page
 * and by the admin's user dialog.
 */
export function KeyList({
  keys,
  actionFor,
  emptyText,
}: {
  keys: readonly KeyEntry[];
  actionFor?: (key: KeyEntry) => ReactNode;
  emptyText: string;
}) {
  const { t } = useTranslation();
  const live = keys.filter((key) => keyState(key) === 'live');
  const past = keys.filter((key) => keyState(key) !== 'live');
  return (
    <div>
      {live.length === 0 ? (
        <p className="py-3 text-stone-700">{emptyText}</p>
      ) : (
        <ul className="divide-y divide-stone-200">
          {live.map((key) => (
            <KeyRow key={key.serial} keyEntry={key} action={actionFor?.(key)} />
          ))}
        </ul>
      )}
      {past.length > 0 && (
        <details className="mt-2 rounded border border-stone-200 px-3 py-2">
          <summary className="min-h-11 cursor-pointer content-center font-semibold">
            {t('keys.past', { count: past.length })}
          </summary>
          <ul className="divide-y divide-stone-200">
            {past.map((key) => (
              <KeyRow key={key.serial} keyEntry={key} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
