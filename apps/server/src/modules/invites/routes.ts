import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  createInviteResponseSchema,
  deleteInviteResponseSchema,
  inviteCodeBodySchema,
  inviteCodeParamsSchema,
  inviteToggleResponseSchema,
  poolsResponseSchema,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import { InviteService } from './service.js';

/** Invite code management (admin): enrollment/pools, invitecode/create, (de)activate, delete. */
export function registerInvitesRoutes(app: FastifyInstance, context: RouteContext): void {
  const invites = new InviteService(context.portal.database.db, context.now);
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    apiPaths.pools,
    { config: { access: 'admin' }, schema: { response: { 200: poolsResponseSchema } } },
    async () => {
      const codes = await invites.list();
      return {
        pools: codes.map((code) => ({
          invitecode: code.code,
          active: code.deactivatedAt === null,
          created: new Date(code.createdAt).toISOString(),
          owner_cs: code.ownerCallsign,
        })),
      };
    },
  );

  api.post(
    apiPaths.createInvite,
    { config: { access: 'admin' }, schema: { response: { 200: createInviteResponseSchema } } },
    async (request) => {
      const { actor } = callerOf(request, 'admin');
      return { invite_code: await invites.create(actor) };
    },
  );

  for (const [path, active] of [
    [apiPaths.deactivateInvite, false],
    [apiPaths.activateInvite, true],
  ] as const) {
    api.put(
      path,
      {
        config: { access: 'admin' },
        schema: { body: inviteCodeBodySchema, response: { 200: inviteToggleResponseSchema } },
      },
      async (request) => {
        const { actor } = callerOf(request, 'admin');
        await invites.setActive(actor, request.body.invite_code, active);
        return { success: true as const };
      },
    );
  }

  api.delete(
    `${API_PREFIX}/enrollment/invitecode/:code`,
    {
      config: { access: 'admin' },
      schema: { params: inviteCodeParamsSchema, response: { 200: deleteInviteResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request, 'admin');
      return {
        success: true as const,
        invite_code: await invites.delete(actor, request.params.code),
      };
    },
  );
}
