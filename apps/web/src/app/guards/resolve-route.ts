/**
 * Every guard and redirect of the route table as one pure function: given the sign-in state and
 * what a route requires, either render it, show the loading text, or redirect somewhere else.
 */

import type { AuthType, UserType } from '../../lib/auth-types';
import { paths } from '../../lib/paths';

/** The part of the auth context the guards read. */
export interface GuardAuthState {
  isLoading: boolean;
  authType: AuthType | null;
  userType: UserType | null;
  isValidUser: boolean;
  /** From the valid-user check. */
  callsign: string | null;
  /** The callsign kept in browser storage by the callsign step (a pending enrollee has one). */
  storedCallsign: string | null;
  otpVerified: boolean;
}

export interface RouteRequirement {
  /** `/` and `/login`: send a signed-in person on to where they belong. */
  signInRedirect?: 'home' | 'login';
  validUser?: boolean;
  authType?: AuthType;
  /** Default: admin, user and no type. */
  allowedUserTypes?: readonly (UserType | null)[];
  otpVerified?: boolean;
}

export type RouteDecision =
  { kind: 'loading' } | { kind: 'render' } | { kind: 'redirect'; to: string };

export const DEFAULT_ALLOWED_USER_TYPES: readonly (UserType | null)[] = ['admin', 'user', null];

/** The guards of the route table, by route. */
export const ROUTE_REQUIREMENTS = {
  home: { signInRedirect: 'home' },
  login: { signInRedirect: 'login' },
  loginCallsign: { otpVerified: true },
  loginEnrollment: { authType: 'jwt' },
  loginCreateMtls: { authType: 'jwt', validUser: true },
  admin: { validUser: true, authType: 'mtls', allowedUserTypes: ['admin'] },
  users: { validUser: true, authType: 'mtls', allowedUserTypes: ['user'] },
  tak: { validUser: true, authType: 'mtls', allowedUserTypes: ['user', 'admin'] },
  open: {},
} as const satisfies Record<string, RouteRequirement>;

const render: RouteDecision = { kind: 'render' };
const redirect = (to: string): RouteDecision => ({ kind: 'redirect', to });

/** Where `/` and `/login` send someone who is signed in; null when nobody is. */
export function signedInTarget(auth: GuardAuthState): string | null {
  if (auth.authType === 'mtls') {
    if (auth.userType === 'admin') return paths.admin.home.path;
    if (auth.userType === 'user' && auth.callsign !== null && auth.callsign !== '') {
      return paths.users.home.href(auth.callsign);
    }
    return null;
  }
  if (auth.authType === 'jwt') {
    return auth.userType === null ? paths.loginEnrollment.path : paths.loginCreateMtls.path;
  }
  return null;
}

export function resolveRoute(auth: GuardAuthState, requirement: RouteRequirement): RouteDecision {
  if (auth.isLoading) return { kind: 'loading' };

  if (requirement.signInRedirect !== undefined) {
    const target = signedInTarget(auth);
    if (target !== null) return redirect(target);
    return requirement.signInRedirect === 'home' ? redirect(paths.login.path) : render;
  }

  if (requirement.otpVerified === true && !auth.otpVerified) return redirect(paths.login.path);

  if (requirement.validUser === true && !auth.isValidUser) {
    const callsign = auth.callsign ?? auth.storedCallsign;
    return redirect(
      callsign === null || callsign === '' ? paths.loginCallsign.path : paths.loginEnrollment.path,
    );
  }

  if (requirement.authType !== undefined && requirement.authType !== auth.authType) {
    return redirect(paths.home.path);
  }
  const allowed = requirement.allowedUserTypes ?? DEFAULT_ALLOWED_USER_TYPES;
  if (!allowed.includes(auth.userType)) return redirect(paths.home.path);

  return render;
}
