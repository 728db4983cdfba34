import { useAuth } from '../../features/auth/components/auth-provider';
import { useLoginSession } from '../../features/login/components/login-session';
import { STORAGE_KEYS, readStored } from '../../lib/storage-keys';
import type { GuardAuthState } from './resolve-route';

/** The auth context as the guards see it: sign-in resolution plus the login session. */
export function useGuardState(): GuardAuthState {
  const auth = useAuth();
  const session = useLoginSession();
  return {
    isLoading: auth.isLoading,
    authType: auth.authType,
    userType: auth.userType,
    isValidUser: auth.isValidUser,
    callsign: auth.callsign,
    storedCallsign: readStored(STORAGE_KEYS.callsign),
    otpVerified: session.otpVerified,
  };
}
