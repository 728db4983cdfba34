import type { FastifyInstance, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { ForbiddenError } from '../../errors.js';
import { actorOf, type Actor } from './actor.js';
import {
  isAdmin,
  mintedByAnother,
  resolveIdentity,
  resolveValidUser,
  type Identity,
  type KeyTokenPolicy,
  type MemberLookup,
  type MemberRecord,
  type TokenPolicy,
} from './identity.js';
import type { TokenClaims, TokenService } from './token-service.js';

/**
 * Who may call a route (docs/api.md), declared on the route itself as `config.access`:
 *
 * - `ungated`: anyone, on both faces; even the mTLS face's gate lets them through without a key
 *   (healthcheck). (Was `open`.)
 * - `anonymous`: anyone, no identity asked; on the mTLS face the gate still wants a valid key
 *   (docs/api.md). (Was `none`.)
 * - `first-admin`: a bearer JWT of scope first-admin.
 * - `any`: any identity: a key on the mTLS face, or a bearer JWT of any scope on the public one.
 * - `member`: a valid user (an active member), by key or by bearer JWT.
 * - `admin-check`: a valid user with the admin role, by key or by bearer JWT. Only for the sign-in
 *   check `check-auth/validuser/admin`: it answers who the caller is and grants nothing.
 * - `admin`: an admin by their key on the mTLS face (or the key a trusted proxy forwards), one
 *   they minted themselves (a key minted through another admin's code is a member key). A
 *   bearer JWT of any scope is refused: a stolen browser token never carries admin power.
 *
 * Every `/api` route must declare one and a 200 response schema, or the portal does not start.
 */
export const ACCESS_LEVELS = [
  'ungated',
  'anonymous',
  'first-admin',
  'any',
  'member',
  'admin-check',
  'admin',
] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** How long after its sign-in a bearer token may still get a key that carries admin power. */
export const ADMIN_KEY_SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/**
 * Who may call a route of the TAK enrollment face (modules/tak/tak-enrollment-face-routes.ts),
 * declared the same way: a TAK client logged in with HTTP Basic (callsign and the member's
 * one-time TAK enrollment token), the token unspent (`tak-enrollment-token`: config, signClient)
 * or having signed within the profile window (`tak-profile-token`: the profile). An `/api` route
 * cannot declare these, nor a route of the face the levels above.
 */
export const TAK_FACE_ACCESS_LEVELS = ['tak-enrollment-token', 'tak-profile-token'] as const;
export type TakFaceAccess = (typeof TAK_FACE_ACCESS_LEVELS)[number];

/** A caller who is a valid user: how they proved it, their record, and who acts in the audit. */
export interface MemberCaller {
  identity: Identity;
  member: MemberRecord;
  actor: Actor;
}

/** What the access check establishes about the caller, per access level. */
export interface CallerByAccess {
  ungated: object;
  anonymous: object;
  'first-admin': { session: TokenClaims };
  any: { identity: Identity };
  member: MemberCaller;
  'admin-check': MemberCaller;
  admin: MemberCaller;
}

export type Caller = { [A in Access]: { access: A } & CallerByAccess[A] }[Access];

/** A registered `/api` route as it declared itself: the source of the access table and tests. */
export interface ApiRoute {
  method: HTTPMethods;
  url: string;
  access: Access;
  /** Answers with a freshly minted certificate (http/cross-site.ts). */
  mints: boolean;
  /** A GET that changes state, refused cross-site like a write (http/cross-site.ts). */
  writes: boolean;
  /** Spends the caller's failure budget (http/failure-budget.ts). */
  failureBudget: boolean;
  /** Answers a key or what turns into one: the key rule of bearer tokens applies. */
  handsOutKey: boolean;
  schema: FastifySchema;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access | TakFaceAccess;
    /**
     * The route answers a key or what a device turns into one (a TAK enrollment code, the trust
     * package that goes with it): a bearer token must also pass the key rule (an enrollment
     * token stops 24 h after the member's first key). Only on `member` routes.
     */
    handsOutKey?: boolean;
  }
  interface FastifyRequest {
    /** Set by the access check before the handler of a route that declares its access. */
    caller: Caller | null;
  }
  interface FastifyInstance {
    /** Every `/api` route registered so far, with its declaration. */
    apiRoutes: readonly ApiRoute[];
  }
}

/**
 * Resolves the caller of a request against the access its route declares, throwing
 * 403 (docs/api.md) when they fall short. The one place identities become callers.
 */
export class Authenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly members: MemberLookup,
    private readonly policy?: TokenPolicy,
    private readonly keyPolicy?: KeyTokenPolicy,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async callerFor(request: FastifyRequest, access: Access): Promise<Caller> {
    switch (access) {
      case 'ungated':
      case 'anonymous':
        return { access };
      case 'first-admin': {
        const identity = await this.identity(request);
        if (identity.type !== 'jwt' || identity.payload.scope !== 'first-admin') {
          throw new ForbiddenError('A first-admin session is required');
        }
        return { access, session: identity.payload };
      }
      case 'any':
        return { access, identity: await this.identity(request) };
      case 'member': {
        const caller = await this.validUser(request, await this.identity(request));
        if (request.routeOptions.config.handsOutKey === true) await this.mayHaveKey(caller);
        return { access, ...caller };
      }
      case 'admin-check':
        return {
          access,
          ...this.asAdmin(await this.validUser(request, await this.identity(request))),
        };
      case 'admin': {
        const identity = await this.identity(request);
        if (identity.type !== 'mtls') {
          throw new ForbiddenError('Admin calls need your key on the mTLS face');
        }
        return { access, ...this.asAdmin(await this.validUser(request, identity)) };
      }
    }
  }

  private async identity(request: FastifyRequest): Promise<Identity> {
    const identity = await resolveIdentity(request, this.tokens, this.policy);
    if (identity === undefined) throw new ForbiddenError('Not authenticated');
    return identity;
  }

  private async validUser(request: FastifyRequest, identity: Identity): Promise<MemberCaller> {
    const user = await resolveValidUser(identity, this.members);
    if (user === undefined) throw new ForbiddenError('Not a valid user');
    return { ...user, actor: actorOf(user, request.ip) };
  }

  /** A key's own holder may always have another; a bearer token must pass the key rules. */
  private async mayHaveKey(caller: MemberCaller): Promise<void> {
    const { identity } = caller;
    if (identity.type !== 'jwt') return;
    const refusal = await this.keyPolicy?.(identity.payload);
    if (refusal !== undefined) throw new ForbiddenError(refusal.detail, refusal.reason);
    this.adminKeyNeedsFreshSignIn(caller, identity.payload);
  }

  /**
   * The one rule of every path that hands a bearer token a key (docs/api.md): a key that would
   * carry admin power (an admin's own) comes only from an admin's own key, or from a token at most
   * ADMIN_KEY_SIGN_IN_WINDOW_MS old, so that a token taken from a browser's storage later, or
   * signed out, never makes one.
   */
  private adminKeyNeedsFreshSignIn(caller: MemberCaller, claims: TokenClaims): void {
    if (!isAdmin(caller) || mintedByAnother(caller) !== undefined) return;
    if (this.now().getTime() - claims.iat * 1000 <= ADMIN_KEY_SIGN_IN_WINDOW_MS) return;
    throw new ForbiddenError(
      "An admin's key is made only with an admin's own key on the mTLS face, or within 15 " +
        'minutes of signing in with a code, and this sign-in is older: use your own key on the ' +
        'mTLS face to get another.',
      'admin_key_needs_fresh_sign_in',
    );
  }

  /** An admin, with a key (or session) they minted themselves: another's code gives no admin power. */
  private asAdmin(caller: MemberCaller): MemberCaller {
    if (!isAdmin(caller)) throw new ForbiddenError('Not an admin');
    const madeBy = mintedByAnother(caller);
    if (madeBy !== undefined) {
      throw new ForbiddenError(
        `This key was minted through ${madeBy}'s code: it is a member key and carries no admin ` +
          'power. Admin calls need a key you minted yourself (downloaded with a key of your own).',
        'admin_needs_own_key',
      );
    }
    return caller;
  }
}

function isApiPath(url: string): boolean {
  return url === '/api' || url.startsWith('/api/');
}

function isAccess(value: unknown): value is Access {
  return ACCESS_LEVELS.some((level) => level === value);
}

export function isTakFaceAccess(value: unknown): value is TakFaceAccess {
  return TAK_FACE_ACCESS_LEVELS.some((level) => level === value);
}

/** Whether a route's schema declares its success answer (200 or 2xx). */
export function hasSuccessSchema(schema: FastifySchema | undefined): boolean {
  const response = schema?.response;
  return (
    typeof response === 'object' && response !== null && ('200' in response || '2xx' in response)
  );
}

/**
 * Collects what is wrong with routes as they register (also inside plugins, where a throw would
 * escape the loader) and stops the app when it gets ready, before it listens, naming each.
 * Returns the function that records one problem.
 */
export function refusalsAtStartUp(
  app: FastifyInstance,
  heading: string,
): (problem: string) => void {
  const problems: string[] = [];
  app.addHook('onReady', (done) => {
    done(problems.length === 0 ? undefined : new Error(`${heading}:\n  ${problems.join('\n  ')}`));
  });
  return (problem) => problems.push(problem);
}

/**
 * The access rules of every route, in one place: refuses to register an `/api` route without an
 * access declaration or a 200 response schema (the app does not get ready, naming it), and
 * checks each request against its route's declaration before the handler, putting the caller on
 * the request. Handlers read it with callerOf.
 */
export function registerAccessControl(app: FastifyInstance, authenticator: Authenticator): void {
  const routes: ApiRoute[] = [];
  app.decorate('apiRoutes', routes);
  app.decorateRequest('caller', null);

  const refuse = refusalsAtStartUp(app, 'The portal cannot start');
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const name = `${methods.join(',')} ${route.url}`;
    const access: unknown = route.config?.access;
    if (!isAccess(access)) {
      refuse(
        `${name}: every /api route declares its access (config.access: ${ACCESS_LEVELS.join(' | ')})`,
      );
      return;
    }
    if (!hasSuccessSchema(route.schema)) {
      refuse(`${name}: every /api route declares its 200 response schema`);
      return;
    }
    if (
      access === 'admin-check' &&
      methods.some((method) => method !== 'GET' && method !== 'HEAD')
    ) {
      refuse(`${name}: admin-check is for the sign-in check (GET) only; use admin`);
      return;
    }
    const mints = route.config?.mints === true;
    const handsOutKey = route.config?.handsOutKey === true;
    if (mints && !handsOutKey) {
      refuse(`${name}: a route that mints hands out a key (config.handsOutKey: true)`);
      return;
    }
    if (handsOutKey && access !== 'member') {
      refuse(`${name}: handsOutKey is a rule of member routes (access: member)`);
      return;
    }
    for (const method of methods) {
      // Fastify adds a HEAD route beside each GET; the table lists the GET.
      if (method === 'HEAD') continue;
      routes.push({
        method,
        url: route.url,
        access,
        mints,
        writes: route.config?.writes === true,
        failureBudget: route.config?.failureBudget !== undefined,
        handsOutKey,
        schema: route.schema ?? {},
      });
    }
  });
  app.addHook('preHandler', async (request) => {
    const access = request.routeOptions.config.access;
    if (!isAccess(access)) return;
    request.caller = await authenticator.callerFor(request, access);
  });
}

/**
 * What callerOf reads of a request: its route's declaration, typed as the route wrote it. Fastify
 * infers a route's `config` from its options, so in the handler of a route declaring
 * `config: { access: 'admin' }` the access is the type `'admin'`; a route that declares none (or
 * an access of the TAK enrollment face) leaves no access to infer, and callerOf does not compile.
 */
export interface DeclaredRequest<A extends Access> {
  readonly caller: Caller | null;
  readonly method: string;
  readonly routeOptions: {
    readonly url?: string | undefined;
    readonly config: { readonly access: A };
  };
}

/**
 * The caller of a route, as the access check found them for the access the route declares: its
 * type follows from the declaration (`config.access`), so a route says who may call it once and
 * its handler cannot expect another caller. Throws (a fault, 500) only when the access check did
 * not run (a route outside the access rules).
 */
export function callerOf<A extends Access>(request: DeclaredRequest<A>): CallerByAccess[A] {
  const caller = request.caller;
  const declared = request.routeOptions.config.access;
  if (caller?.access !== declared) {
    throw new Error(
      `${request.method} ${request.routeOptions.url ?? ''}: no caller for access ${declared}`,
    );
  }
  return caller as CallerByAccess[A];
}
