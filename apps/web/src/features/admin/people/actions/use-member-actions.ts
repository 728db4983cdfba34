import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminKeys } from '../../shared/api/query-keys';
import { demote, promote, renewalCode, revoke } from './definitions';

/** The calls of the member actions, each asking again, once settled, what it changed. */

function useInvalidate(queryKey: readonly string[]) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey });
}

/** Promote or demote: the member's role, so the people lists and rows. */
export function useRoleChange() {
  const onSettled = useInvalidate(adminKeys.people());
  return useMutation({
    mutationFn: ({ change, callsign }: { change: 'promote' | 'demote'; callsign: string }) =>
      (change === 'promote' ? promote : demote).run(callsign),
    onSettled,
  });
}

export function useRevokeMember() {
  const onSettled = useInvalidate(adminKeys.people());
  return useMutation({ mutationFn: revoke.run, onSettled });
}

/** A renewal code: it may have revoked the member's keys. */
export function useRenewalCode() {
  const onSettled = useInvalidate(adminKeys.keys());
  return useMutation({
    mutationFn: ({ callsign, liveKeys }: { callsign: string; liveKeys: number }) =>
      renewalCode.run(callsign, liveKeys),
    onSettled,
  });
}
