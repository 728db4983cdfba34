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
  /** Sign-in resolution got no answer from the server: the device is offline. */
  unreachable: boolean;
}

export interface RouteRequirement {
  /** `/` and `/login`: send a signed-in person on to where they belong. */
  signInRedirect?: 'home' | 'login';
  validUser?: boolean;
  authType?: AuthType;
  /** Default: admin, user and no type. */
  allowedUserTypes?: readonly (UserType | null)[];
  otpVerified?: boolean;
  /**
   * Shown from the service worker's copy when the server cannot be reached (the offline guides):
   * the page holds only what ships in the app itself, which its guard cannot check offline.
   */
  readableOffline?: boolean;
  /**
   * A page that opens only with a key, reached by a link people send (the approval link): opened
   * without one (on the public face), the error page of this code says so and offers the page on
   * the mTLS face (`next`), instead of the sign-in form.
   */
  withoutKey?: 'approval_link';
}

export type RouteDecision =
  | { kind: 'loading' }
  | { kind: 'render' }
  | { kind: 'redirect'; to: string }
  /** The server cannot be reached and the page needs it: say so, with the way to the guides. */
  | { kind: 'offline' };

export const DEFAULT_ALLOWED_USER_TYPES: readonly (UserType | null)[] = ['admin', 'user', null];

/** The guards of the route table, by route. */
export const ROUTE_REQUIREMENTS = {
  home: { signInRedirect: 'home' },
  login: { signInRedirect: 'login' },
  loginCallsign: { otpVerified: true },
  loginEnrollment: { authType: 'jwt' },
  loginCreateMtls: { authType: 'jwt', validUser: true, readableOffline: true },
  admin: { validUser: true, authType: 'mtls', allowedUserTypes: ['admin'] },
  adminApproval: {
    validUser: true,
    authType: 'mtls',
    allowedUserTypes: ['admin'],
    withoutKey: 'approval_link',
  },
  users: { validUser: true, authType: 'mtls', allowedUserTypes: ['user'] },
  tak: {
    validUser: true,
    authType: 'mtls',
    allowedUserTypes: ['user', 'admin'],
    readableOffline: true,
  },
  keys: { validUser: true, authType: 'mtls', allowedUserTypes: ['user', 'admin'] },
  open: {},
} as const satisfies Record<string, RouteRequirement>;

const render: RouteDecision = { kind: 'render' };

/** A page only someone known to the server may see. */
function needsIdentity(requirement: RouteRequirement): boolean {
  return requirement.validUser === true || requirement.authType !== undefined;
}
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

/**
 * `here` is the page asked for (path and query), for the way back to it (`withoutKey`).
 */
export function resolveRoute(
  auth: GuardAuthState,
  requirement: RouteRequirement,
  here = '',
): RouteDecision {
  if (auth.isLoading) return { kind: 'loading' };
  if (auth.unreachable) {
    if (requirement.readableOffline === true) return render;
    // Who this is cannot be known offline: a page that needs it (or `/`, which sends on to one)
    // says the portal cannot be reached, rather than falling back to the sign-in form.
    if (requirement.signInRedirect === 'home' || needsIdentity(requirement))
      return { kind: 'offline' };
  }

  if (requirement.withoutKey !== undefined && auth.authType !== 'mtls') {
    const query = new URLSearchParams({ code: requirement.withoutKey, next: here });
    return redirect(`${paths.error.path}?${query.toString()}`);
  }

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
