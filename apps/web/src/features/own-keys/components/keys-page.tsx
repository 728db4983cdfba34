import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { KeyEntry } from '@callsign/contract';
import { Button } from '../../../components/button';
import { Card } from '../../../components/card';
import { KeyList } from '../../../components/key-list';
import { Navbar } from '../../../components/navbar';
import { errorText } from '../../../lib/error-text';
import { publicOrigin } from '../../../lib/hosts';
import { keyFullName } from '../../../lib/key-names';
import { reloadTo } from '../../../lib/navigation';
import { paths } from '../../../lib/paths';
import { ownKeysQueryOptions } from '../api/keys';
import { RenewalBanner } from './renewal-banner';
import { ReplaceKeyGuide } from './replace-key-guide';
import { RevokeKeyDialog } from './revoke-key-dialog';

/** Where a member lands once they revoked the key of this browser: off the mTLS face. */
export function signedOutUrl(origin = publicOrigin()): string {
  return `${origin}${paths.error.path}?code=key_revoked`;
}

/**
 * /app/keys, "Your keys": first every key the member holds, each live one with Revoke and with
 * the time and serial number that tell two keys of one day apart (issue 31); then a new key in
 * one tap (`newKeyActions`: the .pfx, the TAK package and whatever else the app puts there;
 * `connectCard`: a TAK app's enrollment code, so a phone makes its own new key). The renewal
 * banner shows from 30 days before the newest key ends.
 */
export function KeysPage({
  callsign,
  newKeyActions,
  connectCard,
}: {
  callsign: string;
  newKeyActions: ReactNode;
  connectCard?: ReactNode;
}) {
  const { t, i18n } = useTranslation();
  const keys = useQuery(ownKeysQueryOptions());
  const [revoking, setRevoking] = useState<KeyEntry | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);

  return (
    <>
      <Navbar title={t('keys.title')} backUrl={paths.home.path} backLabel={t('nav.back')} />
      <div className="mx-auto flex w-full max-w-2xl flex-col gap-5 px-4 py-6">
        <div>
          <h1 className="text-2xl font-bold">{t('keys.title')}</h1>
          <p className="mt-2 text-stone-700">{t('keys.intro')}</p>
        </div>
        <RenewalBanner linkToKeys={false} />
        <Card title={t('keys.list_title')}>
          <p
            role="status"
            aria-live="polite"
            className={
              revoked === null ? 'sr-only' : 'mt-2 rounded-md bg-emerald-50 p-3 text-emerald-900'
            }
          >
            {revoked === null ? '' : t('keys.revoke.done', { name: revoked })}
          </p>
          {keys.isPending && <p className="mt-2 text-stone-700">{t('loading')}</p>}
          {keys.error !== null && (
            <p role="alert" className="mt-2 rounded-md bg-red-50 p-3 text-red-800">
              {t('keys.list_error', { message: errorText(t, keys.error) })}
            </p>
          )}
          {keys.data !== undefined && (
            <KeyList
              keys={keys.data}
              emptyText={t('keys.none')}
              actionFor={(key) => (
                <Button
                  variant="secondary"
                  className="shrink-0"
                  aria-label={t('keys.revoke.button_for', {
                    name: keyFullName(t, key, i18n.language),
                  })}
                  onClick={() => {
                    setRevoked(null);
                    setRevoking(key);
                  }}
                >
                  {t('keys.revoke.button')}
                </Button>
              )}
            />
          )}
        </Card>
        <Card title={t('keys.new.title')}>
          <p className="mt-2 text-stone-700">{t('keys.new.text')}</p>
          <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap">{newKeyActions}</div>
          <ReplaceKeyGuide callsign={callsign} />
        </Card>
        {connectCard}
      </div>
      {revoking !== null && (
        <RevokeKeyDialog
          key={revoking.serial}
          keyEntry={revoking}
          onClose={() => {
            setRevoking(null);
          }}
          onRevoked={(name) => {
            setRevoking(null);
            setRevoked(name);
          }}
          onRevokedCurrent={() => {
            // This browser's key no longer opens the mTLS face: say so on the public one.
            reloadTo(signedOutUrl());
          }}
        />
      )}
    </>
  );
}
