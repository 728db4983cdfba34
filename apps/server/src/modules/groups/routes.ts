import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_PREFIX,
  apiPaths,
  callsignParamsSchema,
  createGroupBodySchema,
  createGroupResponseSchema,
  directoryStatusResponseSchema,
  iso,
  deleteGroupQuerySchema,
  deleteGroupResponseSchema,
  groupParamsSchema,
  groupsResponseSchema,
  memberGroupsBodySchema,
  memberGroupsResponseSchema,
} from '@callsign/contract';
import { callerOf } from '../auth/access.js';
import type { RouteContext } from '../route-context.js';
import type { MemberGroups } from './service.js';

const memberGroupsAnswer = ({ callsign, groups }: MemberGroups) => ({
  callsign,
  groups: groups.map(({ name, description, direction }) => ({ name, description, direction })),
});

/** Groups (docs/api.md "Groups"): admins manage them, members read their own. */
export function registerGroupRoutes(app: FastifyInstance, context: RouteContext): void {
  const { groups } = context.services;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const personGroups = `${API_PREFIX}/people/:callsign/groups`;

  api.get(
    apiPaths.groups,
    { config: { access: 'admin' }, schema: { response: { 200: groupsResponseSchema } } },
    async () => ({
      groups: (await groups.list()).map(({ name, description, members }) => ({
        name,
        description,
        members,
      })),
    }),
  );

  api.post(
    apiPaths.groups,
    {
      config: { access: 'admin' },
      schema: { body: createGroupBodySchema, response: { 200: createGroupResponseSchema } },
    },
    async (request) => {
      const { actor } = callerOf(request);
      return groups.create(actor, request.body);
    },
  );

  api.delete(
    `${API_PREFIX}/groups/:name`,
    {
      config: { access: 'admin' },
      schema: {
        params: groupParamsSchema,
        querystring: deleteGroupQuerySchema,
        response: { 200: deleteGroupResponseSchema },
      },
    },
    async (request) => {
      const { actor } = callerOf(request);
      const deleted = await groups.delete(actor, request.params.name, request.query.force);
      return {
        success: true as const,
        name: deleted.name,
        members_removed: deleted.membersRemoved,
      };
    },
  );

  api.get(
    personGroups,
    {
      config: { access: 'admin' },
      schema: { params: callsignParamsSchema, response: { 200: memberGroupsResponseSchema } },
    },
    async (request) => memberGroupsAnswer(await groups.ofMember(request.params.callsign)),
  );

  api.put(
    personGroups,
    {
      config: { access: 'admin' },
      schema: {
        params: callsignParamsSchema,
        body: memberGroupsBodySchema,
        response: { 200: memberGroupsResponseSchema },
      },
    },
    async (request) => {
      const { actor } = callerOf(request);
      return memberGroupsAnswer(
        await groups.setForMember(actor, request.params.callsign, request.body.groups),
      );
    },
  );

  api.get(
    apiPaths.directory,
    { config: { access: 'admin' }, schema: { response: { 200: directoryStatusResponseSchema } } },
    () => {
      const { directory, config } = context;
      const status = directory?.status();
      return {
        configured: status !== undefined,
        url: config.ldap?.url ?? null,
        base_dn: config.ldap?.baseDn ?? null,
        in_sync: status?.inSync ?? false,
        last_sync: status?.lastSyncAt == null ? null : iso(status.lastSyncAt),
        last_error: status?.lastError ?? null,
        pending: status?.pending ?? 0,
        entry_errors: status?.entryErrors ?? [],
      };
    },
  );

  api.get(
    apiPaths.myGroups,
    { config: { access: 'member' }, schema: { response: { 200: memberGroupsResponseSchema } } },
    async (request) => {
      const { member } = callerOf(request);
      return memberGroupsAnswer(await groups.ofMember(member.callsign));
    },
  );
}
