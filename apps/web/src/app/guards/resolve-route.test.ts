import { describe, expect, it } from 'vitest';
import {
  ROUTE_REQUIREMENTS,
  resolveRoute,
  type GuardAuthState,
  type RouteDecision,
} from './resolve-route';

const anonymous: GuardAuthState = {
  isLoading: false,
  authType: null,
  userType: null,
  isValidUser: false,
  callsign: null,
  storedCallsign: null,
  otpVerified: false,
  unreachable: false,
};

/** The sign-in states the table is checked against. */
const states = {
  loading: { ...anonymous, isLoading: true },
  anonymous,
  anonymousOtp: { ...anonymous, otpVerified: true },
  /** A pending enrollee: a token and a stored callsign, not yet a valid user. */
  jwtPending: { ...anonymous, authType: 'jwt', storedCallsign: 'ALPHA1' },
  /** A token but nothing stored (the callsign is unknown). */
  jwtNoCallsign: { ...anonymous, authType: 'jwt' },
  jwtUser: {
    ...anonymous,
    authType: 'jwt',
    userType: 'user',
    isValidUser: true,
    callsign: 'ALPHA1',
    storedCallsign: 'ALPHA1',
  },
  jwtAdmin: {
    ...anonymous,
    authType: 'jwt',
    userType: 'admin',
    isValidUser: true,
    callsign: 'BOSS',
    storedCallsign: 'BOSS',
  },
  mtlsUser: {
    ...anonymous,
    authType: 'mtls',
    userType: 'user',
    isValidUser: true,
    callsign: 'ALPHA1',
  },
  mtlsAdmin: {
    ...anonymous,
    authType: 'mtls',
    userType: 'admin',
    isValidUser: true,
    callsign: 'BOSS',
  },
  /** An mTLS identity the valid-user check refused (e.g. a revoked member). */
  mtlsInvalid: { ...anonymous, authType: 'mtls' },
  /** No answer from the server (offline): sign-in cannot be resolved. */
  offline: { ...anonymous, unreachable: true },
} satisfies Record<string, GuardAuthState>;

type StateName = keyof typeof states;
type Expected = 'render' | 'loading' | 'offline' | `->${string}`;

function decision(expected: Expected): RouteDecision {
  if (expected === 'render') return { kind: 'render' };
  if (expected === 'loading') return { kind: 'loading' };
  if (expected === 'offline') return { kind: 'offline' };
  return { kind: 'redirect', to: expected.slice(2) };
}

/** Where an approval link opened without a key goes (the table asks with no page given). */
const APPROVAL_ELSEWHERE = '/error?code=approval_link&next=';

/** One row per route of the route table; one column per sign-in state. */
const table: [keyof typeof ROUTE_REQUIREMENTS, string, Record<StateName, Expected>][] = [
  [
    'home',
    '/',
    {
      loading: 'loading',
      anonymous: '->/login',
      anonymousOtp: '->/login',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/enrollment',
      jwtUser: '->/login/createmtls',
      jwtAdmin: '->/login/createmtls',
      mtlsUser: '->/app/users/ALPHA1',
      mtlsAdmin: '->/app/admin',
      mtlsInvalid: '->/login',
      offline: 'offline',
    },
  ],
  [
    'login',
    '/login',
    {
      loading: 'loading',
      anonymous: 'render',
      anonymousOtp: 'render',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/enrollment',
      jwtUser: '->/login/createmtls',
      jwtAdmin: '->/login/createmtls',
      mtlsUser: '->/app/users/ALPHA1',
      mtlsAdmin: '->/app/admin',
      mtlsInvalid: 'render',
      offline: 'render',
    },
  ],
  [
    'loginCallsign',
    '/login/callsign',
    {
      loading: 'loading',
      anonymous: '->/login',
      anonymousOtp: 'render',
      jwtPending: '->/login',
      jwtNoCallsign: '->/login',
      jwtUser: '->/login',
      jwtAdmin: '->/login',
      mtlsUser: '->/login',
      mtlsAdmin: '->/login',
      mtlsInvalid: '->/login',
      offline: '->/login',
    },
  ],
  [
    'loginEnrollment',
    '/login/enrollment',
    {
      loading: 'loading',
      anonymous: '->/',
      anonymousOtp: '->/',
      jwtPending: 'render',
      jwtNoCallsign: 'render',
      jwtUser: 'render',
      jwtAdmin: 'render',
      mtlsUser: '->/',
      mtlsAdmin: '->/',
      mtlsInvalid: '->/',
      offline: 'offline',
    },
  ],
  [
    'loginCreateMtls',
    '/login/createmtls',
    {
      loading: 'loading',
      anonymous: '->/login/callsign',
      anonymousOtp: '->/login/callsign',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/callsign',
      jwtUser: 'render',
      jwtAdmin: 'render',
      mtlsUser: '->/',
      mtlsAdmin: '->/',
      mtlsInvalid: '->/login/callsign',
      offline: 'render',
    },
  ],
  [
    'admin',
    '/app/admin/*',
    {
      loading: 'loading',
      anonymous: '->/login/callsign',
      anonymousOtp: '->/login/callsign',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/callsign',
      jwtUser: '->/',
      jwtAdmin: '->/',
      mtlsUser: '->/',
      mtlsAdmin: 'render',
      mtlsInvalid: '->/login/callsign',
      offline: 'offline',
    },
  ],
  [
    'adminApproval',
    '/app/admin/user-management/approval',
    {
      loading: 'loading',
      anonymous: `->${APPROVAL_ELSEWHERE}`,
      anonymousOtp: `->${APPROVAL_ELSEWHERE}`,
      jwtPending: `->${APPROVAL_ELSEWHERE}`,
      jwtNoCallsign: `->${APPROVAL_ELSEWHERE}`,
      jwtUser: `->${APPROVAL_ELSEWHERE}`,
      jwtAdmin: `->${APPROVAL_ELSEWHERE}`,
      mtlsUser: '->/',
      mtlsAdmin: 'render',
      mtlsInvalid: '->/login/callsign',
      offline: 'offline',
    },
  ],
  [
    'users',
    '/app/users/*',
    {
      loading: 'loading',
      anonymous: '->/login/callsign',
      anonymousOtp: '->/login/callsign',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/callsign',
      jwtUser: '->/',
      jwtAdmin: '->/',
      mtlsUser: 'render',
      mtlsAdmin: '->/',
      mtlsInvalid: '->/login/callsign',
      offline: 'offline',
    },
  ],
  [
    'tak',
    '/app/services/tak/*',
    {
      loading: 'loading',
      anonymous: '->/login/callsign',
      anonymousOtp: '->/login/callsign',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/callsign',
      jwtUser: '->/',
      jwtAdmin: '->/',
      mtlsUser: 'render',
      mtlsAdmin: 'render',
      mtlsInvalid: '->/login/callsign',
      offline: 'render',
    },
  ],
  [
    'keys',
    '/app/keys',
    {
      loading: 'loading',
      anonymous: '->/login/callsign',
      anonymousOtp: '->/login/callsign',
      jwtPending: '->/login/enrollment',
      jwtNoCallsign: '->/login/callsign',
      jwtUser: '->/',
      jwtAdmin: '->/',
      mtlsUser: 'render',
      mtlsAdmin: 'render',
      mtlsInvalid: '->/login/callsign',
      offline: 'offline',
    },
  ],
  [
    'open',
    '/error and any other path',
    {
      loading: 'loading',
      anonymous: 'render',
      anonymousOtp: 'render',
      jwtPending: 'render',
      jwtNoCallsign: 'render',
      jwtUser: 'render',
      jwtAdmin: 'render',
      mtlsUser: 'render',
      mtlsAdmin: 'render',
      mtlsInvalid: 'render',
      offline: 'render',
    },
  ],
];

describe('resolveRoute: the route table', () => {
  const cases = table.flatMap(([route, path, row]) =>
    (Object.keys(row) as StateName[]).map((state) => ({
      route,
      path,
      state,
      expected: row[state],
    })),
  );

  it.each(cases)('$path as $state: $expected', ({ route, state, expected }) => {
    expect(resolveRoute(states[state], ROUTE_REQUIREMENTS[route])).toEqual(decision(expected));
  });

  it('covers every route requirement', () => {
    expect(table.map(([route]) => route).sort()).toEqual(Object.keys(ROUTE_REQUIREMENTS).sort());
  });
});

describe('resolveRoute: the redirect rules', () => {
  it('an approval link opened without a key: the error page that leads to it with the key', () => {
    const here = '/app/admin/user-management/approval?callsign=Ranger7&approvalcode=ABCD2345';
    const decided = resolveRoute(anonymous, ROUTE_REQUIREMENTS.adminApproval, here);
    expect(decided.kind).toBe('redirect');
    const to = new URL(decided.kind === 'redirect' ? decided.to : '', 'https://portal.example');
    expect(to.pathname).toBe('/error');
    expect(to.searchParams.get('code')).toBe('approval_link');
    expect(to.searchParams.get('next')).toBe(here);
  });

  it('/ and /login: an mtls user without a callsign is not sent to a user page', () => {
    const state: GuardAuthState = { ...states.mtlsUser, callsign: null };
    expect(resolveRoute(state, ROUTE_REQUIREMENTS.home)).toEqual(decision('->/login'));
    expect(resolveRoute(state, ROUTE_REQUIREMENTS.login)).toEqual(decision('render'));
  });

  it('/: the callsign in the user path is URL-encoded', () => {
    const state: GuardAuthState = { ...states.mtlsUser, callsign: 'A B' };
    expect(resolveRoute(state, ROUTE_REQUIREMENTS.home)).toEqual(decision('->/app/users/A%20B'));
  });

  it('a valid-user route: a stored callsign without a valid user goes to /login/enrollment', () => {
    expect(resolveRoute({ ...anonymous, storedCallsign: 'X1Y' }, { validUser: true })).toEqual(
      decision('->/login/enrollment'),
    );
  });

  it('a valid-user route: no callsign known goes to /login/callsign', () => {
    expect(resolveRoute(anonymous, { validUser: true })).toEqual(decision('->/login/callsign'));
  });

  it('an auth type mismatch sends to /', () => {
    expect(resolveRoute(states.jwtUser, { authType: 'mtls' })).toEqual(decision('->/'));
    expect(resolveRoute(states.mtlsUser, { authType: 'jwt' })).toEqual(decision('->/'));
    expect(resolveRoute(anonymous, { authType: 'jwt' })).toEqual(decision('->/'));
  });

  it('a user type not allowed sends to /; the default allows admin, user and no type', () => {
    expect(resolveRoute(states.mtlsUser, { allowedUserTypes: ['admin'] })).toEqual(decision('->/'));
    expect(resolveRoute(states.jwtPending, { allowedUserTypes: ['admin', 'user'] })).toEqual(
      decision('->/'),
    );
    for (const state of [states.mtlsUser, states.mtlsAdmin, states.jwtPending]) {
      expect(resolveRoute(state, {})).toEqual(decision('render'));
    }
  });

  it('a verified one-time code is required, else /login', () => {
    expect(resolveRoute(anonymous, { otpVerified: true })).toEqual(decision('->/login'));
    expect(resolveRoute(states.anonymousOtp, { otpVerified: true })).toEqual(decision('render'));
  });

  it('while sign-in resolution loads, every route shows only the loading text', () => {
    for (const requirement of Object.values(ROUTE_REQUIREMENTS)) {
      expect(resolveRoute({ ...states.mtlsAdmin, isLoading: true }, requirement)).toEqual(
        decision('loading'),
      );
    }
  });
});
