import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  apiPaths,
  INVITE_DEFAULT_MAX_USES,
  INVITE_DEFAULT_VALID_DAYS,
  type CreateInviteBody,
  type InviteState,
} from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';
import { adminKeys } from '../../shared/api/query-keys';

export interface InviteCode {
  code: string;
  active: boolean;
  /** Whether it admits people now: `active` only while not deactivated, expired or used up. */
  state: InviteState;
  created: string;
  label: string | null;
  expiresAt: string | null;
  maxUses: number | null;
  uses: number;
  autoApprove: boolean;
  team: string | null;
  role: string | null;
  /** The bulk call that made it (a slip), and the callsign it is for. */
  batchId: string | null;
  reservedCallsign: string | null;
}

const LIST_FAILED = 'Failed to login as admin';

/** GET enrollment/pools: the invite codes that are not deleted. */
export async function fetchInviteCodes(): Promise<InviteCode[]> {
  try {
    const answer = await apiJson(apiPaths.pools, 'pools');
    return answer.pools.map((pool) => ({
      code: pool.invitecode,
      active: pool.active,
      state: pool.state,
      created: pool.created,
      label: pool.label,
      expiresAt: pool.expires_at,
      maxUses: pool.max_uses,
      uses: pool.uses,
      autoApprove: pool.auto_approve,
      team: pool.team,
      role: pool.role,
      batchId: pool.batch_id,
      reservedCallsign: pool.reserved_callsign,
    }));
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

export function inviteCodesQueryOptions() {
  return queryOptions({ queryKey: adminKeys.inviteList(), queryFn: fetchInviteCodes });
}

/**
 * POST enrollment/invitecode/create: the new code. Without options no body is sent, as the
 * spec's client does: a plain reusable code.
 */
export async function createInviteCode(options?: CreateInviteBody): Promise<string> {
  try {
    const answer = await apiJson(apiPaths.createInvite, 'createInvite', {
      method: 'POST',
      ...(options === undefined ? {} : { body: options }),
    });
    return answer.invite_code;
  } catch (error) {
    return adminFailure(error, LIST_FAILED);
  }
}

const DAY_MS = 86_400_000;

/** When a code made now with the defaults stops admitting people. */
export function defaultInviteExpiry(now: number): number {
  return now + INVITE_DEFAULT_VALID_DAYS * DAY_MS;
}

/** What "Create new code" asks for: expires in 7 days, 25 people at most. */
export function defaultInviteOptions(now: number): CreateInviteBody {
  return {
    expires_at: new Date(defaultInviteExpiry(now)).toISOString(),
    max_uses: INVITE_DEFAULT_MAX_USES,
  };
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
  return useMutation({
    mutationFn: (options?: CreateInviteBody) => createInviteCode(options),
    onSettled,
  });
}

export function useChangeInviteCode() {
  const onSettled = useInvalidateInvites();
  return useMutation({
    mutationFn: ({ change, code }: { change: InviteChange; code: string }) =>
      changeInviteCode(change, code),
    onSettled,
  });
}
