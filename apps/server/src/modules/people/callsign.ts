import type { Expression, ExpressionBuilder, ReferenceExpression, SqlBool } from 'kysely';

// A callsign is one whatever its case: "Alpha" and "ALPHA" are the same member, as the unique
// indexes on lower(callsign) have it. Every comparison of two callsigns goes through here, or
// through the contract's `sameCallsign` (the same rule in code, which auth uses too).

export { sameCallsign } from '@callsign/contract';

/**
 * The SQL condition `lower(column) = lower(callsign)`: the column holds `callsign` in any case
 * (`.where((eb) => callsignIn(eb, 'callsign', callsign))`). It matches the indexes on
 * lower(callsign), so a lookup is no scan.
 */
export function callsignIn<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  column: ReferenceExpression<DB, TB>,
  callsign: string,
): Expression<SqlBool> {
  return eb(eb.fn('lower', [column]), '=', eb.fn('lower', [eb.val(callsign)]));
}

/** The SQL condition `lower(a) = lower(b)`: two columns hold the same callsign (a join). */
export function sameCallsignIn<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  a: ReferenceExpression<DB, TB>,
  b: ReferenceExpression<DB, TB>,
): Expression<SqlBool> {
  return eb(eb.fn('lower', [a]), '=', eb.fn('lower', [b]));
}
