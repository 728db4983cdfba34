import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths, ROLE_ADMIN, type RevokePersonResponse } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';
import { adminKeys } from '../../shared/api/query-keys';

export interface Person {
  callsign: string;
  isAdmin: boolean;
}

const LIST_FAILED = 'Failed to login as admin';

/** GET people/list: the active members, admins marked by the role. */
export async function fetchPeople(): Promise<Person[]> {
  try {
    const answer = await apiJson(apiPaths.peopleList, 'peopleList');
    return answer.callsign_list.map((entry) => ({
      callsign: entry.callsign,
      isAdmin: entry.roles.includes(ROLE_ADMIN),
    }));
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

export function peopleQueryOptions() {
  return queryOptions({ queryKey: adminKeys.peopleList(), queryFn: fetchPeople });
}

/** DELETE people/{callsign}: revokes the member and every key they hold. */
export async function revokePerson(callsign: string): Promise<RevokePersonResponse> {
  try {
    return await apiJson(apiPaths.person(callsign), 'revokePerson', { method: 'DELETE' });
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

export type RoleChange = 'promote' | 'demote';

const ROLE_CHANGE_FAILED: Record<RoleChange, string> = {
  promote: 'Failed to promote user',
  demote: 'Failed to demote user',
};

/**
 * POST enrollment/promote or enrollment/demote. An answer without `success: true` does not match
 * the contract, so it fails as an unexpected answer (an error, not a success).
 */
export async function changeRole(change: RoleChange, callsign: string): Promise<string> {
  try {
    const answer = await apiJson(apiPaths[change], 'roleChange', {
      method: 'POST',
      body: { callsign },
    });
    return answer.detail;
  } catch (error) {
    return adminFailure(error, ROLE_CHANGE_FAILED[change]);
  }
}

function useInvalidatePeople() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: adminKeys.people() });
}

export function useRevokePerson() {
  const onSettled = useInvalidatePeople();
  return useMutation({ mutationFn: revokePerson, onSettled });
}

export function useChangeRole() {
  const onSettled = useInvalidatePeople();
  return useMutation({
    mutationFn: ({ change, callsign }: { change: RoleChange; callsign: string }) =>
      changeRole(change, callsign),
    onSettled,
  });
}
