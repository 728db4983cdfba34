import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { apiJson } from '../../../lib/api-client';
import { adminFailure } from './failure';
import { adminKeys } from './query-keys';

export interface InviteCode {
  code: string;
  active: boolean;
}

const LIST_FAILED = 'Failed to login as admin';

/** GET enrollment/pools: the invite codes that are not deleted. */
export async function fetchInviteCodes(): Promise<InviteCode[]> {
  try {
    const answer = await apiJson(apiPaths.pools, 'pools');
    return answer.pools.map((pool) => ({ code: pool.invitecode, active: pool.active }));
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

export function inviteCodesQueryOptions() {
  return queryOptions({ queryKey: adminKeys.inviteList(), queryFn: fetchInviteCodes });
}

/** POST enrollment/invitecode/create (no body): the new code. */
export async function createInviteCode(): Promise<string> {
  try {
    const answer = await apiJson(apiPaths.createInvite, 'createInvite', { method: 'POST' });
    return answer.invite_code;
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

export type InviteChange = 'deactivate' | 'activate' | 'delete';

const CHANGE_FAILED: Record<InviteChange, string> = {
  deactivate: 'Failed to deactivate invite code',
  activate: 'Failed to Reactivate invite code',
  delete: LIST_FAILED,
};

/** PUT invitecode/deactivate or activate, or DELETE invitecode/{code}. */
export async function changeInviteCode(change: InviteChange, code: string): Promise<void> {
  try {
    if (change === 'delete') {
      await apiJson(apiPaths.invite(code), 'deleteInvite', { method: 'DELETE' });
    } else {
      const path = change === 'activate' ? apiPaths.activateInvite : apiPaths.deactivateInvite;
      await apiJson(path, 'inviteToggle', { method: 'PUT', body: { invite_code: code } });
    }
  } catch (error) {
    adminFailure(error, CHANGE_FAILED[change]);
  }
}

function useInvalidateInvites() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: adminKeys.invites() });
}

export function useCreateInviteCode() {
  const onSettled = useInvalidateInvites();
  return useMutation({ mutationFn: createInviteCode, onSettled });
}

export function useChangeInviteCode() {
  const onSettled = useInvalidateInvites();
  return useMutation({
    mutationFn: ({ change, code }: { change: InviteChange; code: string }) =>
      changeInviteCode(change, code),
    onSettled,
  });
}
