import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  callsignParamsSchema,
  memberParamsSchema,
  memberResponseSchema,
  membersListQuerySchema,
  membersListResponseSchema,
  peopleListResponseSchema,
  revokePersonResponseSchema,
  type RevokePersonResponse,
  roleChangeBodySchema,
  roleChangeResponseSchema,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RevocationReceipt } from '../certificates/revocation-receipt.js';
import type { RouteContext } from '../route-context.js';

/**
 * GET people/list, DELETE people/{callsign}, POST enrollment/promote and demote, GET
 * admin/members and admin/members/{callsign} (admin).
 */
export function registerPeopleRoutes(app: FastifyInstance, context: RouteContext): void {
  const { people, memberCommands } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  app.get(
    apiPaths.peopleList,
    { config: { access: 'admin' }, schema: { response: { 200: peopleListResponseSchema } } },
    async (_request, reply) => {
      // Sent as the database wrote it: a string with a JSON content type skips the serializer, so
      // 10,000 rows are neither parsed nor validated nor stringified again. The schema above
      // still documents the answer, and the API tests check it.
      const list = await people.listActiveJson();
      return reply.type('application/json; charset=utf-8').send(`{"callsign_list":${list}}`);
    },
  );

  api.get(
    apiPaths.members,
    {
      config: { access: 'admin' },
      schema: { querystring: membersListQuerySchema, response: { 200: membersListResponseSchema } },
    },
    async (request) => {
      callerOf(request);
      return people.membersPage(request.query);
    },
  );

  api.get(
    `${apiPaths.members}/:callsign`,
    {
      config: { access: 'admin' },
      schema: { params: memberParamsSchema, response: { 200: memberResponseSchema } },
    },
    async (request) => {
      callerOf(request);
      return { member: await people.memberRow(request.params.callsign) };
    },
  );

  api.delete(
    `${API_PREFIX}/people/:callsign`,
    {
      config: { access: 'admin' },
      schema: { params: callsignParamsSchema, response: { 200: revokePersonResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const revoked = await memberCommands.revoke(
        actor,
        request.params.callsign,
        (error, check) => {
          request.log.error({ err: error, check }, 'revocation receipt: check failed');
        },
      );
      return {
        success: true as const,
        invite_code: revoked.inviteCode,
        receipt: receiptAnswer(revoked.receipt),
      };
    },
  );

  api.post(
    apiPaths.promote,
    {
      config: { access: 'admin' },
      schema: { body: roleChangeBodySchema, response: { 200: roleChangeResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const detail = await people.promote(actor, request.body.callsign);
      return { success: true as const, detail };
    },
  );

  api.post(
    apiPaths.demote,
    {
      config: { access: 'admin' },
      schema: { body: roleChangeBodySchema, response: { 200: roleChangeResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const detail = await memberCommands.demote(actor, request.body.callsign);
      return { success: true as const, detail };
    },
  );
}

function receiptAnswer(receipt: RevocationReceipt): RevokePersonResponse['receipt'] {
  const { crl, ocsp } = receipt;
  return {
    certificates_revoked: receipt.certificatesRevoked,
    crl: crl && {
      number: crl.number.toString(),
      this_update: crl.thisUpdate.toISOString(),
      next_update: crl.nextUpdate.toISOString(),
      lists_revoked: crl.listsRevoked,
    },
    newest_serial: receipt.newestSerial,
    ocsp: ocsp && {
      status: ocsp.status,
      revoked_at: ocsp.revokedAt?.toISOString() ?? null,
      produced_at: ocsp.producedAt.toISOString(),
    },
  };
}
