import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  batchParamsSchema,
  batchResponseSchema,
  bulkBodySchema,
  bulkCheckBodySchema,
  bulkCheckResponseSchema,
  bulkResponseSchema,
  DEFAULT_PRESET,
  loginLink,
  voidBatchResponseSchema,
  type BatchResponse,
  iso,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import { presetOf } from '../presets/preset.js';
import type { RouteContext } from '../route-context.js';
import type { SlipRecord } from './repository.js';
import { slipState } from './slips.js';

/** A batch as GET enrollment/bulk/{batch_id} answers it: its slips and where each stands. */
function batchAnswer(
  batchId: string,
  slips: readonly SlipRecord[],
  link: (code: string) => string,
  now: number,
): BatchResponse {
  const first = slips[0];
  const preset = first === undefined ? DEFAULT_PRESET : presetOf(first.team, first.role);
  return {
    batch_id: batchId,
    created: iso(first?.createdAt ?? now),
    owner_cs: first?.ownerCallsign ?? null,
    ...preset,
    expires_at: iso(first?.expiresAt ?? now),
    slips: slips.map((slip) => ({
      callsign: slip.callsign,
      invite_code: slip.code,
      link: link(slip.code),
      state: slipState(slip, now),
    })),
  };
}

/** Bulk onboarding (admin, docs/api.md, "Onboarding a unit"): check, create, follow and void a batch of slips. */
export function registerBulkRoutes(app: FastifyInstance, context: RouteContext): void {
  const { bulk } = context.services;
  const link = (code: string) => loginLink(context.config.publicOrigin, code);
  const api = app.withTypeProvider<ZodTypeProvider>();
  const batchPath = `${API_PREFIX}/enrollment/bulk/:batch_id`;

  api.post(
    apiPaths.bulkCheck,
    {
      config: { access: 'admin' },
      schema: { body: bulkCheckBodySchema, response: { 200: bulkCheckResponseSchema } },
    },
    async (request) => ({ callsigns: await bulk.check(request.body.callsigns) }),
  );

  api.post(
    apiPaths.bulk,
    {
      config: { access: 'admin' },
      schema: { body: bulkBodySchema, response: { 200: bulkResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const { callsigns, team, role, valid_hours, groups } = request.body;
      const batch = await bulk.create(actor, {
        callsigns,
        preset: { team, role },
        validHours: valid_hours,
        groups,
      });
      return {
        batch_id: batch.batchId,
        expires_at: iso(batch.expiresAt),
        slips: batch.slips.map(({ callsign, code }) => ({
          callsign,
          invite_code: code,
          link: link(code),
        })),
      };
    },
  );

  api.get(
    batchPath,
    {
      config: { access: 'admin' },
      schema: { params: batchParamsSchema, response: { 200: batchResponseSchema } },
    },
    async (request) => {
      const { batch_id } = request.params;
      const slips = await bulk.slips(batch_id);
      return batchAnswer(batch_id, slips, link, context.now().getTime());
    },
  );

  api.post(
    `${batchPath}/void`,
    {
      config: { access: 'admin' },
      schema: { params: batchParamsSchema, response: { 200: voidBatchResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      return { voided: await bulk.void(actor, request.params.batch_id) };
    },
  );
}
