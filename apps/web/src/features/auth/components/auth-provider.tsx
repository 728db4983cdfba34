import { createContext, use, useMemo, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { signInQueryOptions, type SignIn } from '../api/sign-in';

/** The server-derived part of the auth context: the outcome of sign-in resolution. */
export interface AuthContextValue extends SignIn {
  isLoading: boolean;
}

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const signIn = useQuery(signInQueryOptions());
  const value = useMemo<AuthContextValue>(
    () => ({
      authType: signIn.data?.authType ?? null,
      userType: signIn.data?.userType ?? null,
      isValidUser: signIn.data?.isValidUser ?? false,
      callsign: signIn.data?.callsign ?? null,
      error: signIn.data?.error ?? null,
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
