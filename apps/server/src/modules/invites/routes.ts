import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  createInviteBodySchema,
  createInviteResponseSchema,
  deleteInviteResponseSchema,
  inviteCodeBodySchema,
  inviteCodeParamsSchema,
  inviteToggleResponseSchema,
  poolsResponseSchema,
  type InviteState,
  type PoolsResponse,
  iso,
} from '@callsign/contract';
import { asRole, asTeam } from '../presets/preset.js';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import { inviteCodeState, type InviteCode } from './repository.js';
import type { InviteOptions } from './service.js';

const POOL_STATES = {
  usable: 'active',
  deactivated: 'deactivated',
  expired: 'expired',
  'used-up': 'used-up',
  // Deleted codes are not listed; the pools never show one.
  deleted: 'deactivated',
} as const satisfies Record<ReturnType<typeof inviteCodeState>, InviteState>;

/** A code as `pools` lists it: the spec's fields, then the options of docs/api.md, "Onboarding a unit". */
function poolEntry(code: InviteCode, now: number): PoolsResponse['pools'][number] {
  return {
    invitecode: code.code,
    active: code.deactivatedAt === null,
    created: new Date(code.createdAt).toISOString(),
    owner_cs: code.ownerCallsign,
    state: POOL_STATES[inviteCodeState(code, now)],
    label: code.label,
    expires_at: code.expiresAt === null ? null : iso(code.expiresAt),
    max_uses: code.maxUses,
    uses: code.useCount,
    auto_approve: code.autoApprove,
    team: asTeam(code.team),
    role: asRole(code.role),
    reserved_callsign: code.reservedCallsign,
    batch_id: code.batchId,
    groups: code.groups,
  };
}

/** Invite code management (admin): enrollment/pools, invitecode/create, (de)activate, delete. */
export function registerInvitesRoutes(app: FastifyInstance, context: RouteContext): void {
  const { invites } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    apiPaths.pools,
    { config: { access: 'admin' }, schema: { response: { 200: poolsResponseSchema } } },
    async () => {
      const codes = await invites.list();
      const now = context.now().getTime();
      return { pools: codes.map((code) => poolEntry(code, now)) };
    },
  );

  api.post(
    apiPaths.createInvite,
    {
      config: { access: 'admin' },
      schema: { body: createInviteBodySchema, response: { 200: createInviteResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const body = request.body ?? {};
      const options: InviteOptions = {
        label: body.label ?? null,
        expiresAt: body.expires_at == null ? null : Date.parse(body.expires_at),
        maxUses: body.max_uses ?? null,
        autoApprove: body.auto_approve ?? false,
        team: body.team ?? null,
        role: body.role ?? null,
        groups: body.groups ?? [],
      };
      return { invite_code: await invites.create(actor, options) };
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
        const { actor } = callerOf(request);
        const changed = await invites.setActive(actor, request.body.invite_code, active);
        return changed.ownerTransferredFrom === undefined
          ? { success: true as const }
          : { success: true as const, owner_transferred_from: changed.ownerTransferredFrom };
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
      const { actor } = callerOf(request);
      return {
        success: true as const,
        invite_code: await invites.delete(actor, request.params.code),
      };
    },
  );
}
