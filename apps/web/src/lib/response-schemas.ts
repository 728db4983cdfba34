import {
  acceptResponseSchema,
  caExpiryResponseSchema,
  expiringResponseSchema,
  keyListResponseSchema,
  renewalCodeResponseSchema,
  revokeKeyResponseSchema,
  acceptanceResponseSchema,
  addAdminResponseSchema,
  auditListResponseSchema,
  batchResponseSchema,
  bulkCheckResponseSchema,
  bulkResponseSchema,
  checkAdminCodeResponseSchema,
  checkAuthResponseSchema,
  checkInviteCodeResponseSchema,
  createInviteResponseSchema,
  deleteInviteResponseSchema,
  enrollResponseSchema,
  enrollmentListResponseSchema,
  exchangeCodeResponseSchema,
  healthcheckResponseSchema,
  idmConsoleResponseSchema,
  instructionsResponseSchema,
  inviteToggleResponseSchema,
  lockResponseSchema,
  memberResponseSchema,
  membersListResponseSchema,
  peopleListResponseSchema,
  poolsResponseSchema,
  presetResponseSchema,
  revokePersonResponseSchema,
  roleChangeResponseSchema,
  takEnrollmentTokenResponseSchema,
  takReadinessResponseSchema,
  voidBatchResponseSchema,
  createGroupResponseSchema,
  deleteGroupResponseSchema,
  directoryStatusResponseSchema,
  groupsResponseSchema,
  memberGroupsResponseSchema,
} from '@callsign/contract';

/**
 * The contract's schema of every JSON answer the app reads, by name. This module (and zod with
 * it) is its own chunk: the API client loads it alongside the first call, so that zod stays out
 * of the login bundle.
 */
export const responseSchemas = {
  accept: acceptResponseSchema,
  acceptance: acceptanceResponseSchema,
  addAdmin: addAdminResponseSchema,
  caExpiry: caExpiryResponseSchema,
  auditList: auditListResponseSchema,
  batch: batchResponseSchema,
  bulk: bulkResponseSchema,
  bulkCheck: bulkCheckResponseSchema,
  checkAdminCode: checkAdminCodeResponseSchema,
  checkAuth: checkAuthResponseSchema,
  checkInviteCode: checkInviteCodeResponseSchema,
  createInvite: createInviteResponseSchema,
  deleteInvite: deleteInviteResponseSchema,
  enroll: enrollResponseSchema,
  enrollmentList: enrollmentListResponseSchema,
  member: memberResponseSchema,
  membersList: membersListResponseSchema,
  exchangeCode: exchangeCodeResponseSchema,
  expiring: expiringResponseSchema,
  healthcheck: healthcheckResponseSchema,
  idmConsole: idmConsoleResponseSchema,
  instructions: instructionsResponseSchema,
  inviteToggle: inviteToggleResponseSchema,
  keyList: keyListResponseSchema,
  lock: lockResponseSchema,
  peopleList: peopleListResponseSchema,
  pools: poolsResponseSchema,
  preset: presetResponseSchema,
  groups: groupsResponseSchema,
  createGroup: createGroupResponseSchema,
  deleteGroup: deleteGroupResponseSchema,
  memberGroups: memberGroupsResponseSchema,
  directoryStatus: directoryStatusResponseSchema,
  renewalCode: renewalCodeResponseSchema,
  revokeKey: revokeKeyResponseSchema,
  revokePerson: revokePersonResponseSchema,
  roleChange: roleChangeResponseSchema,
  takEnrollmentToken: takEnrollmentTokenResponseSchema,
  takReadiness: takReadinessResponseSchema,
  voidBatch: voidBatchResponseSchema,
};

export type ResponseSchemas = typeof responseSchemas;
export type ResponseName = keyof ResponseSchemas;

export type ParsedResponse<Name extends ResponseName> =
  { ok: true; data: ReturnType<ResponseSchemas[Name]['parse']> } | { ok: false; problems: string };

/** Parses an answer with its schema; what does not match is listed as `path: message; ...`. */
export function parseResponse<Name extends ResponseName>(
  name: Name,
  body: unknown,
): ParsedResponse<Name> {
  const result = responseSchemas[name].safeParse(body);
  if (result.success) {
    // Indexing the map by a generic name gives the union of all answers; this one is `name`'s.
    return { ok: true, data: result.data as ReturnType<ResponseSchemas[Name]['parse']> };
  }
  const problems = result.error.issues
    .map(
      (issue) =>
        `${issue.path.length === 0 ? '(answer)' : issue.path.map(String).join('.')}: ${issue.message}`,
    )
    .join('; ');
  return { ok: false, problems };
}
