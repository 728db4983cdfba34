import { callsignSchema, type CallsignProblem, type SlipState } from '@callsign/contract';
import type { SlipRecord } from './repository.js';

export interface CheckedCallsign {
  callsign: string;
  problem: CallsignProblem | null;
}

/**
 * Why each callsign of a bulk list cannot have a slip, in the order given: `invalid` (not 3 to
 * 30 letters and digits), `duplicate` (listed before, in any case), `taken` (in `unavailable`,
 * lower-cased: a member's, another live slip's or a reserved name); null when it can.
 */
export function checkCallsigns(
  callsigns: readonly string[],
  unavailable: ReadonlySet<string>,
): CheckedCallsign[] {
  const seen = new Set<string>();
  return callsigns.map((callsign) => {
    if (!callsignSchema.safeParse(callsign).success) return { callsign, problem: 'invalid' };
    const key = callsign.toLowerCase();
    if (seen.has(key)) return { callsign, problem: 'duplicate' };
    seen.add(key);
    return { callsign, problem: unavailable.has(key) ? 'taken' : null };
  });
}

/** The valid callsigns of a list: the only ones worth looking up. */
export function validCallsigns(callsigns: readonly string[]): string[] {
  return callsigns.filter((callsign) => callsignSchema.safeParse(callsign).success);
}

const PROBLEM_TEXT: Record<CallsignProblem, string> = {
  invalid: 'not 3 to 30 letters and digits',
  duplicate: 'listed twice',
  taken: 'taken',
};

/** One sentence naming every callsign that cannot have a slip, and why. */
export function describeProblems(checked: readonly CheckedCallsign[]): string {
  const named = checked.flatMap(({ callsign, problem }) =>
    problem === null ? [] : [`${JSON.stringify(callsign)} (${PROBLEM_TEXT[problem]})`],
  );
  return `No slips were made: ${named.length} callsign${named.length === 1 ? '' : 's'} cannot be used: ${named.join(', ')}`;
}

/**
 * Where a slip stands at `now`. Once its member enrolled: `revoked`, `key` (a key was issued) or
 * `enrolled`. Never used: `void` when voided or deleted, `expired` past its time, else `issued`.
 */
export function slipState(slip: SlipRecord, now: number): SlipState {
  if (slip.member !== null) {
    if (slip.member.status === 'revoked') return 'revoked';
    return slip.member.hasKey ? 'key' : 'enrolled';
  }
  if (slip.deletedAt !== null || slip.deactivatedAt !== null) return 'void';
  if (slip.expiresAt !== null && slip.expiresAt <= now) return 'expired';
  return 'issued';
}
