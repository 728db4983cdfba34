import { queryOptions } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { ApiError, apiJson, errorMessage } from '../../../lib/api-client';
import type { AuthType, UserType } from '../../../lib/auth-types';

/** The outcome of sign-in resolution, the server-derived part of the auth context. */
export interface SignIn {
  authType: AuthType | null;
  userType: UserType | null;
  isValidUser: boolean;
  callsign: string | null;
  error: string | null;
}

export const authKeys = {
  all: ['auth'] as const,
  signIn: () => [...authKeys.all, 'sign-in'] as const,
};

/** GET check-auth/mtls_or_jwt: the type, or null on 403; other failures throw. */
export async function fetchAuthType(): Promise<AuthType | null> {
  try {
    const answer = await apiJson(apiPaths.checkAuthAny, 'checkAuth', { bearer: true });
    return answer.type;
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status === 403) return null;
      throw new Error(`API response was not ok. Status code: ${error.status}`, { cause: error });
    }
    throw error;
  }
}

/** GET check-auth/validuser: the caller's callsign (userid). */
export async function fetchValidUser(): Promise<string | null> {
  const answer = await apiJson(apiPaths.checkAuthValidUser, 'checkAuth', { bearer: true });
  return answer.userid;
}

/** GET check-auth/validuser/admin: OK is admin, 403 is not admin, anything else an error. */
export async function fetchIsAdmin(): Promise<boolean> {
  try {
    await apiJson(apiPaths.checkAuthAdmin, 'checkAuth', { bearer: true });
    return true;
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status === 403) return false;
      throw new Error(`Unexpected status code: ${error.status}`, { cause: error });
    }
    throw error;
  }
}

/** Sign-in resolution on load; it never rejects: failures end up in `error`. */
export async function resolveSignIn(): Promise<SignIn> {
  const result: SignIn = {
    authType: null,
    userType: null,
    isValidUser: false,
    callsign: null,
    error: null,
  };
  try {
    result.authType = await fetchAuthType();
  } catch (error) {
    result.error = `Error: ${errorMessage(error)}`;
    return result;
  }
  if (result.authType === null) return result;
  try {
    result.callsign = await fetchValidUser();
    result.isValidUser = true;
    result.userType = 'user';
  } catch {
    // Not a valid user (yet): a pending enrollee, or a revoked member.
  }
  try {
    if (await fetchIsAdmin()) result.userType = 'admin';
  } catch (error) {
    result.error = errorMessage(error);
  }
  return result;
}

export function signInQueryOptions() {
  return queryOptions({
    queryKey: authKeys.signIn(),
    queryFn: resolveSignIn,
    staleTime: Infinity,
    retry: false,
    refetchOnWindowFocus: false,
  });
}
