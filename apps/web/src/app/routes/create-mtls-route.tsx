import { useAuth } from '../../features/auth/components/auth-provider';
import { CreateMtlsPage } from '../../features/key-install/components/create-mtls-page';
import { ConnectTakCard } from '../../features/tak/components/connect-tak-card';
import { STORAGE_KEYS, readStored } from '../../lib/storage-keys';

export function CreateMtlsRoute() {
  const auth = useAuth();
  return (
    <>
      <CreateMtlsPage
        callsign={auth.callsign ?? readStored(STORAGE_KEYS.callsign)}
        isAdmin={auth.userType === 'admin'}
      />
      {/* A member can connect ATAK or iTAK with their sign-in alone, without installing a key. */}
      <div className="mx-auto w-full max-w-2xl px-4 pb-6">
        <ConnectTakCard settingsDownload="none" />
      </div>
    </>
  );
}
