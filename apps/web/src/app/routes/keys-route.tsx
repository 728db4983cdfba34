import { useQueryClient } from '@tanstack/react-query';
import { useAuth } from '../../features/auth/components/auth-provider';
import { NewKeyButton } from '../../features/key-install/components/new-key-button';
import { ownKeysKeys } from '../../features/own-keys/api/keys';
import { KeysPage } from '../../features/own-keys/components/keys-page';
import { ConnectTakCard } from '../../features/tak/components/connect-tak-card';
import { TakDownloadButton } from '../../features/tak/components/tak-download';

/**
 * /app/keys: the member's keys, with a new key one tap away: the browser's .pfx, the TAK
 * package, and a TAK app's enrollment code (each new download is a new key, so the list is
 * refreshed after it).
 */
export function KeysRoute() {
  const { callsign } = useAuth();
  const client = useQueryClient();
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ownKeysKeys.all });
  };
  return (
    <KeysPage
      callsign={callsign ?? ''}
      newKeyActions={
        <>
          <NewKeyButton callsign={callsign ?? ''} onDownloaded={refresh} />
          <TakDownloadButton onDownloaded={refresh} />
        </>
      }
      connectCard={<ConnectTakCard settingsDownload="above" />}
    />
  );
}
