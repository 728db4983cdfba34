import { createContext, use, useEffect, useMemo, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useOnline } from '../../../components/offline-notice';
import { signInQueryOptions, type SignIn } from '../api/sign-in';

/** The server-derived part of the auth context: the outcome of sign-in resolution. */
export interface AuthContextValue extends SignIn {
  isLoading: boolean;
}

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const signIn = useQuery(signInQueryOptions());
  // Resolved while the portal could not be reached: resolve again once it answers, so a page
  // that said "you are offline" comes back by itself.
  const online = useOnline();
  const { refetch } = signIn;
  const unreachable = signIn.data?.unreachable === true;
  useEffect(() => {
    if (online && unreachable) void refetch();
  }, [online, unreachable, refetch]);
  const value = useMemo<AuthContextValue>(
    () => ({
      authType: signIn.data?.authType ?? null,
      userType: signIn.data?.userType ?? null,
      isValidUser: signIn.data?.isValidUser ?? false,
      callsign: signIn.data?.callsign ?? null,
      error: signIn.data?.error ?? null,
      unreachable: signIn.data?.unreachable ?? false,
      isLoading: signIn.isPending,
    }),
    [signIn.data, signIn.isPending],
  );
  return <AuthContext value={value}>{children}</AuthContext>;
}

export function useAuth(): AuthContextValue {
  const value = use(AuthContext);
  if (value === null) throw new Error('useAuth is used outside AuthProvider');
  return value;
}
