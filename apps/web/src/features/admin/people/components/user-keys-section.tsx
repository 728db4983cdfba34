import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { KeyEntry } from '@callsign/contract';
import { Button } from '../../../../components/button';
import { InlineConfirm } from '../../../../components/inline-confirm';
import { KeyList } from '../../../../components/key-list';
import { keyName, keyState, whatStopsWorking } from '../../../../lib/key-names';
import { errorText } from '../../../../lib/error-text';
import type { ActionTarget } from '../actions/definitions';
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
    <InlineConfirm
      title={t('keys.revoke.title')}
      className="flex flex-col gap-2 sm:max-w-64"
      text={whatStopsWorking(t, keyEntry)}
      error={
        revoke.error !== null && (
          <p role="alert" className="text-sm text-red-800">
            {t('keys.revoke.failed')} {errorText(t, revoke.error)}
          </p>
        )
      }
      keepLabel={t('keys.revoke.keep')}
      confirmLabel={revoke.isPending ? t('keys.revoke.revoking') : t('keys.revoke.confirm')}
      busy={revoke.isPending}
      onKeep={() => {
        onConfirming(false);
      }}
      onConfirm={() => {
        revoke.mutate(
          { callsign, serial: keyEntry.serial },
          {
            onSuccess: () => {
              onConfirming(false);
            },
          },
        );
      }}
    />
  );
}

/**
 * The "Keys" section of a member: their keys, each live one revocable (a lost device), and a
 * renewal code (which revokes the keys that still work). `target`, where the member's row is
 * known (their page): a renewal code the server would refuse is not offered, its reason shown.
 */
export function UserKeysSection({ callsign, target }: { callsign: string; target?: ActionTarget }) {
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
      <RenewalCodeShare
        callsign={callsign}
        target={target}
        liveKeys={keys.data?.filter((key) => keyState(key) === 'live').length ?? 0}
      />
    </section>
  );
}
