import type { Executor } from '../../db/transaction.js';

/**
 * Records that the token with this `jti` has been used. True the first time; false when it was
 * already recorded (the primary key decides, so racing uses of one token have one winner).
 */
export async function recordUsedToken(
  executor: Executor,
  token: { jti: string; usedAt: number; expiresAt: number },
): Promise<boolean> {
  const row = await executor
    .insertInto('used_tokens')
    .values({ jti: token.jti, used_at: token.usedAt, expires_at: token.expiresAt })
    .onConflict((oc) => oc.column('jti').doNothing())
    .returning('jti')
    .executeTakeFirst();
  return row !== undefined;
}
