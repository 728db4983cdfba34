import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { apiPaths, checkAuthResponseSchema, type CheckAuthResponse } from '@callsign/contract';
import { callerOf, type MemberCaller } from './access.js';
import type { Identity } from './identity.js';

function present(identity: Identity, userid: string | null): CheckAuthResponse {
  return { type: identity.type, userid, payload: { ...identity.payload } };
}

function presentMember(caller: MemberCaller): CheckAuthResponse {
  return present(caller.identity, caller.member.callsign);
}

const schema = { response: { 200: checkAuthResponseSchema } };

/** GET check-auth/mtls_or_jwt, validuser and validuser/admin (docs/api.md): sign-in checks. */
export function registerAuthRoutes(fastify: FastifyInstance): void {
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
}
