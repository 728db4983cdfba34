import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths, ENROLLMENT_STATE } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';
import { adminKeys } from '../../shared/api/query-keys';

/** GET enrollment/list: the callsigns still waiting for a decision (state 0). */
export async function fetchWaitingUsers(): Promise<string[]> {
  try {
    const answer = await apiJson(apiPaths.enrollmentList, 'enrollmentList');
    return answer.callsign_list
      .filter((entry) => entry.state === ENROLLMENT_STATE.pending)
      .map((entry) => entry.callsign);
  } catch (error) {
    return adminFailure(error, 'Failed to login as admin');
  }
}

export function waitingUsersQueryOptions() {
  return queryOptions({ queryKey: adminKeys.approvalList(), queryFn: fetchWaitingUsers });
}

/** POST enrollment/accept with the code the enrollee shows. */
export async function approveUser(callsign: string, approvecode: string): Promise<string> {
  try {
    const answer = await apiJson(apiPaths.accept, 'accept', {
      method: 'POST',
      body: { callsign, approvecode },
    });
    return answer.detail;
  } catch (error) {
    return adminFailure(error, 'Failed to approve user');
  }
}

/** The fixed reason of a rejection (a rejection is a lock call). */
export const LOCK_REASON = 'Locked by an admin';

/** POST enrollment/lock: rejects the enrollment. */
export async function rejectUser(callsign: string): Promise<void> {
  try {
    await apiJson(apiPaths.lock, 'lock', {
      method: 'POST',
      body: { callsign, lock_reason: LOCK_REASON },
    });
  } catch (error) {
    adminFailure(error, 'Failed to reject user');
  }
}

/** An approval adds a member, so the people list is refetched with the waiting list. */
function useInvalidateDecided() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: adminKeys.approvals() }),
      client.invalidateQueries({ queryKey: adminKeys.people() }),
    ]);
}

export function useApproveUser() {
  const onSettled = useInvalidateDecided();
  return useMutation({
    mutationFn: ({ callsign, code }: { callsign: string; code: string }) =>
      approveUser(callsign, code),
    onSettled,
  });
}

export function useRejectUser() {
  const onSettled = useInvalidateDecided();
  return useMutation({ mutationFn: rejectUser, onSettled });
}
