import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  acceptanceResponseSchema,
  acceptBodySchema,
  acceptResponseSchema,
  apiPaths,
  checkInviteCodeQuerySchema,
  checkInviteCodeResponseSchema,
  enrollBodySchema,
  enrollmentListResponseSchema,
  enrollResponseSchema,
  lockBodySchema,
  lockResponseSchema,
  type CheckInviteCodeResponse,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';

/** The enrollment calls (docs/api.md): invite check, enroll, poll, list, accept, lock. */
export function registerEnrollmentRoutes(fastify: FastifyInstance, context: RouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const service = context.services.enrollment;

  app.get(
    apiPaths.checkInviteCode,
    {
      config: {
        access: 'anonymous',
        failureBudget: {
          failedAnswer: (answer: CheckInviteCodeResponse) => !answer.invitecode_is_active,
        },
      },
      schema: {
        querystring: checkInviteCodeQuerySchema,
        response: { 200: checkInviteCodeResponseSchema },
      },
    },
    async (request) => {
      const invite = await service.checkInviteCode(request.query.invitecode);
      // A plain code answers exactly as the spec's client knows it; only a usable slip, and a
      // code that exists but admits nobody now (why), say more.
      return {
        invitecode_is_active: invite.active,
        ...(invite.reservedCallsign === null ? {} : { reserved_callsign: invite.reservedCallsign }),
        ...(invite.refusal === null ? {} : { invitecode_state: invite.refusal }),
      };
    },
  );

  app.post(
    apiPaths.enroll,
    {
      config: { access: 'anonymous', failureBudget: true },
      schema: { body: enrollBodySchema, response: { 200: enrollResponseSchema } },
    },
    async (request) => {
      const { callsign, invite_code } = request.body;
      const enrolled = await service.enroll(request.ip, { callsign, inviteCode: invite_code });
      return { jwt: enrolled.jwt, approvecode: enrolled.approvalCode, callsign: enrolled.callsign };
    },
  );

  app.get(
    apiPaths.acceptance,
    { config: { access: 'any' }, schema: { response: { 200: acceptanceResponseSchema } } },
    async (request) => {
      const { identity } = callerOf(request);
      const { accepted, state } = await service.acceptanceOf(identity.userid);
      return { have_i_been_accepted: accepted, state };
    },
  );

  app.get(
    apiPaths.enrollmentList,
    { config: { access: 'admin' }, schema: { response: { 200: enrollmentListResponseSchema } } },
    async (_request, reply) => {
      // Sent as built (and cached) by the service: a string with a JSON content type skips the
      // serializer. The schema above still documents the answer, and the API tests check it.
      const list = await service.listJson();
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(list);
    },
  );

  app.post(
    apiPaths.accept,
    {
      config: { access: 'admin', failureBudget: true },
      schema: { body: acceptBodySchema, response: { 200: acceptResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const { callsign, approvecode } = request.body;
      const accepted = await service.accept(actor, { callsign, approvalCode: approvecode });
      return { success: true as const, detail: `${accepted.callsign} is now a member` };
    },
  );

  app.post(
    apiPaths.lock,
    {
      config: { access: 'admin' },
      schema: { body: lockBodySchema, response: { 200: lockResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const { callsign, lock_reason } = request.body;
      await service.lock(actor, { callsign, lockReason: lock_reason });
      return { success: true as const };
    },
  );
}
