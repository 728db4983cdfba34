import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  apiPaths,
  checkAuthResponseSchema,
  signOutResponseSchema,
  type CheckAuthResponse,
} from '@callsign/contract';
import type { RouteContext } from '../route-context.js';
import { callerOf, type MemberCaller } from './access.js';
import { bearerToken, type Identity } from './identity.js';

function present(identity: Identity, userid: string | null): CheckAuthResponse {
  return { type: identity.type, userid, payload: { ...identity.payload } };
}

function presentMember(caller: MemberCaller): CheckAuthResponse {
  return present(caller.identity, caller.member.callsign);
}

const schema = { response: { 200: checkAuthResponseSchema } };

/**
 * GET check-auth/mtls_or_jwt, validuser and validuser/admin (docs/api.md): sign-in checks; POST
 * token/sign-out.
 */
export function registerAuthRoutes(fastify: FastifyInstance, context: RouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(apiPaths.checkAuthAny, { config: { access: 'any' }, schema }, (request) => {
    const { identity } = callerOf(request);
    return Promise.resolve(present(identity, identity.userid));
  });

  app.get(apiPaths.checkAuthValidUser, { config: { access: 'member' }, schema }, (request) =>
    Promise.resolve(presentMember(callerOf(request))),
  );

  // A sign-in check, not an admin call: it answers a bearer JWT too and grants nothing (the key
  // page uses it to link admins to the admin area, which then needs the key).
  app.get(apiPaths.checkAuthAdmin, { config: { access: 'admin-check' }, schema }, (request) =>
    Promise.resolve(presentMember(callerOf(request))),
  );

  // The token sent is the credential: whoever holds it may end it (an expired one needs no end).
  app.post(
    apiPaths.signOut,
    { config: { access: 'anonymous' }, schema: { response: { 200: signOutResponseSchema } } },
    async (request) => {
      await context.services.signOut.signOut(request.ip, bearerToken(request));
      return { success: true as const };
    },
  );
}
