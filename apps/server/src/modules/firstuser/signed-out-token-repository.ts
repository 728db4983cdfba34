import type { Executor } from '../../db/transaction.js';

/** The `signed_out_tokens` table: the jti of each bearer token signed out, until it expires. */

/** Records a signed-out token: true the first time, false when it was signed out already. */
export async function insertSignedOutToken(
  executor: Executor,
  token: { jti: string; signedOutAt: number; expiresAt: number },
): Promise<boolean> {
  const row = await executor
    .insertInto('signed_out_tokens')
    .values({ jti: token.jti, signed_out_at: token.signedOutAt, expires_at: token.expiresAt })
    .onConflict((oc) => oc.column('jti').doNothing())
    .returning('jti')
    .executeTakeFirst();
  return row !== undefined;
}

export async function isTokenSignedOut(executor: Executor, jti: string): Promise<boolean> {
  const row = await executor
    .selectFrom('signed_out_tokens')
    .select('jti')
    .where('jti', '=', jti)
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets the tokens that have expired by `now` (they are refused for that alone). */
export async function deleteExpiredSignedOutTokens(executor: Executor, now: number): Promise<void> {
  await executor.deleteFrom('signed_out_tokens').where('expires_at', '<=', now).execute();
}
