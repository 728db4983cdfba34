import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { KeyEntry } from '@callsign/contract';
import { Button } from '../../../../components/button';
import { KeyList } from '../../../../components/key-list';
import { keyName, whatStopsWorking } from '../../../../lib/key-names';
import { errorMessage } from '../../../../lib/api-client';
import { personKeysQueryOptions, useRevokePersonKey } from '../api/keys';
import { QueryState } from '../../shared/components/query-state';
import { RenewalCodeShare } from './renewal-code-share';

/** Revoke, then an inline confirmation that says what stops working. */
function RevokeKeyAction({
  callsign,
  keyEntry,
  confirming,
  onConfirming,
}: {
  callsign: string;
  keyEntry: KeyEntry;
  confirming: boolean;
  onConfirming: (confirming: boolean) => void;
}) {
  const { t, i18n } = useTranslation();
  const revoke = useRevokePersonKey();
  if (!confirming) {
    return (
      <Button
        variant="secondary"
        className="shrink-0"
        // Named for its key: the dialog has the member's own Revoke too.
        aria-label={t('keys.revoke.button_for', { name: keyName(t, keyEntry, i18n.language) })}
        onClick={() => {
          onConfirming(true);
        }}
      >
        {t('keys.revoke.button')}
      </Button>
    );
  }
  return (
    <div
      role="group"
      aria-label={t('keys.revoke.title')}
      className="flex flex-col gap-2 sm:max-w-64"
    >
      <p className="text-sm text-stone-800">{whatStopsWorking(t, keyEntry)}</p>
      {revoke.error !== null && (
        <p role="alert" className="text-sm text-red-800">
          {t('keys.revoke.failed')} {errorMessage(revoke.error)}
        </p>
      )}
      <div className="flex gap-2">
        <Button
          variant="secondary"
          autoFocus
          disabled={revoke.isPending}
          onClick={() => {
            onConfirming(false);
          }}
        >
          {t('keys.revoke.keep')}
        </Button>
        <Button
          variant="danger"
          disabled={revoke.isPending}
          onClick={() => {
            revoke.mutate(
              { callsign, serial: keyEntry.serial },
              {
                onSuccess: () => {
                  onConfirming(false);
                },
              },
            );
          }}
        >
          {revoke.isPending ? t('keys.revoke.revoking') : t('keys.revoke.confirm')}
        </Button>
      </div>
    </div>
  );
}

/**
 * The "Keys" section of the user dialog: the member's keys, each live one
 * revocable (a lost device), and a renewal code for a member whose key has expired.
 */
export function UserKeysSection({ callsign }: { callsign: string }) {
  const { t } = useTranslation();
  const titleId = useId();
  const keys = useQuery(personKeysQueryOptions(callsign));
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <section aria-labelledby={titleId} className="border-t border-stone-200 pt-3">
      <h3 id={titleId} className="text-lg font-bold">
        {t('admin.keys.title')}
      </h3>
      <QueryState isPending={keys.isPending} error={keys.error} />
      {keys.data !== undefined && (
        <KeyList
          keys={keys.data}
          emptyText={t('admin.keys.none')}
          actionFor={(key) => (
            <RevokeKeyAction
              callsign={callsign}
              keyEntry={key}
              confirming={confirming === key.serial}
              onConfirming={(on) => {
                setConfirming(on ? key.serial : null);
              }}
            />
          )}
        />
      )}
      <RenewalCodeShare callsign={callsign} />
    </section>
  );
}
