import { useAuth } from '../../features/auth/components/auth-provider';
import { CreateMtlsPage } from '../../features/key/components/create-mtls-page';
import { STORAGE_KEYS, readStored } from '../../lib/storage-keys';

export function CreateMtlsRoute() {
  const auth = useAuth();
  return (
    <CreateMtlsPage
      callsign={auth.callsign ?? readStored(STORAGE_KEYS.callsign)}
      isAdmin={auth.userType === 'admin'}
    />
  );
}
