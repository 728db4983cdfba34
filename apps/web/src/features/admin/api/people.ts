import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  apiPaths,
  ROLE_ADMIN,
  type PeopleListResponse,
  type RevokePersonResponse,
  type RoleChangeResponse,
} from '@callsign/contract';
import { ApiError, apiJson } from '../../../lib/api-client';
import { adminFailure } from './failure';
import { adminKeys } from './query-keys';

export interface Person {
  callsign: string;
  isAdmin: boolean;
}

const LIST_FAILED = 'Failed to login as admin';

/** GET people/list: the active members, admins marked by the role (spec §3). */
export async function fetchPeople(): Promise<Person[]> {
  try {
    const answer = await apiJson<PeopleListResponse>(apiPaths.peopleList);
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
    return await apiJson<RevokePersonResponse>(apiPaths.person(callsign), { method: 'DELETE' });
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

export type RoleChange = 'promote' | 'demote';

const ROLE_CHANGE_FAILED: Record<RoleChange, string> = {
  promote: 'Failed to promote user',
  demote: 'Failed to demote user',
};

/** POST enrollment/promote or enrollment/demote; `success: false` is a failure too (spec §8). */
export async function changeRole(change: RoleChange, callsign: string): Promise<string> {
  let answer: RoleChangeResponse;
  try {
    answer = await apiJson<RoleChangeResponse>(apiPaths[change], {
      method: 'POST',
      body: { callsign },
    });
  } catch (error) {
    return adminFailure(error, ROLE_CHANGE_FAILED[change]);
  }
  if (!(answer.success as boolean)) throw new ApiError(200, ROLE_CHANGE_FAILED[change]);
  return answer.detail;
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
