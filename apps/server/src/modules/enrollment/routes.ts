import type { FastifyInstance } from 'fastify';
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
  type EnrollmentState,
  type EnrollmentStateName,
} from '@callsign/contract';
import type { RouteContext } from '../route-context.js';
import { EnrollmentService } from './service.js';

const STATE_NAMES: Record<EnrollmentState, EnrollmentStateName> = {
  0: 'pending',
  1: 'approved',
  2: 'rejected',
};

/** The enrollment calls of product.md §4: invite check, enroll, poll, list, accept, lock. */
export function registerEnrollmentRoutes(fastify: FastifyInstance, context: RouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { auth } = context;
  const service = new EnrollmentService({
    db: context.portal.database.db,
    tokens: context.portal.tokens,
    failures: context.failures,
    now: context.now,
    enrollmentGraceMs: context.portal.config.enrollmentGraceMs,
  });

  app.get(
    apiPaths.checkInviteCode,
    {
      schema: {
        querystring: checkInviteCodeQuerySchema,
        response: { 200: checkInviteCodeResponseSchema },
      },
    },
    async (request) => ({
      invitecode_is_active: await service.isInviteCodeActive(request, request.query.invitecode),
    }),
  );

  app.post(
    apiPaths.enroll,
    { schema: { body: enrollBodySchema, response: { 200: enrollResponseSchema } } },
    async (request) => {
      const { callsign, invite_code } = request.body;
      const enrolled = await service.enroll(request, { callsign, inviteCode: invite_code });
      return { jwt: enrolled.jwt, approvecode: enrolled.approvalCode, callsign: enrolled.callsign };
    },
  );

  app.get(
    apiPaths.acceptance,
    { schema: { response: { 200: acceptanceResponseSchema } } },
    async (request) => {
      const identity = await auth.any(request);
      const { state } = await service.enrollmentOf(identity.userid);
      return { have_i_been_accepted: state === 1, state: STATE_NAMES[state] };
    },
  );

  app.get(
    apiPaths.enrollmentList,
    { schema: { response: { 200: enrollmentListResponseSchema } } },
    async (request) => {
      await auth.admin(request);
      const enrollments = await service.list();
      // The approval code never leaves the enrollee: the admin must get it from them.
      return {
        callsign_list: enrollments.map(({ callsign, state }) => ({
          callsign,
          approvecode: '' as const,
          state,
        })),
      };
    },
  );

  app.post(
    apiPaths.accept,
    { schema: { body: acceptBodySchema, response: { 200: acceptResponseSchema } } },
    async (request) => {
      const admin = await auth.admin(request);
      const { callsign, approvecode } = request.body;
      const accepted = await service.accept(request, admin.member.callsign, {
        callsign,
        approvalCode: approvecode,
      });
      return { success: true as const, detail: `${accepted.callsign} is now a member` };
    },
  );

  app.post(
    apiPaths.lock,
    { schema: { body: lockBodySchema, response: { 200: lockResponseSchema } } },
    async (request) => {
      const admin = await auth.admin(request);
      const { callsign, lock_reason } = request.body;
      await service.lock(request, admin.member.callsign, { callsign, lockReason: lock_reason });
      return { success: true as const };
    },
  );
}
