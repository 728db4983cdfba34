import type { FastifyInstance } from 'fastify';
import { apiPaths, type CheckAuthResponse } from '@callsign/contract';
import type { Authenticator, Identity } from './identity.js';

function present(identity: Identity, userid: string | null): CheckAuthResponse {
  return { type: identity.type, userid, payload: { ...identity.payload } };
}

/** GET check-auth/mtls_or_jwt, validuser and validuser/admin (product.md §4). */
export function registerAuthRoutes(app: FastifyInstance, auth: Authenticator): void {
  app.get(apiPaths.checkAuthAny, async (request) => {
    const identity = await auth.any(request);
    return present(identity, identity.userid);
  });

  app.get(apiPaths.checkAuthValidUser, async (request) => {
    const user = await auth.validUser(request);
    return present(user.identity, user.member.callsign);
  });

  app.get(apiPaths.checkAuthAdmin, async (request) => {
    const user = await auth.admin(request);
    return present(user.identity, user.member.callsign);
  });
}
