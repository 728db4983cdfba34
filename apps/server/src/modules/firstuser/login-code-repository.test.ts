import { expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { consumeLoginCode, insertLoginCode, isLoginCodeUsable } from './login-code-repository.js';

const T = 1_767_225_600_000;
const MINUTE = 60_000;

describeWithMigratedDatabase('login code repository', (database) => {
  it('consumes a code once and returns it', async () => {
    await insertLoginCode(database.handle.db, {
      codeHash: 'hash-once',
      kind: 'exchange',
      subjectCallsign: 'Alpha',
      createdAt: T,
      expiresAt: T + 5 * MINUTE,
    });

    expect(await isLoginCodeUsable(database.handle.db, 'hash-once', T + 1)).toBe(true);
    expect(await consumeLoginCode(database.handle.db, 'hash-once', T + 1)).toEqual({
      codeHash: 'hash-once',
      kind: 'exchange',
      subjectCallsign: 'Alpha',
      createdAt: T,
      expiresAt: T + 5 * MINUTE,
      usedAt: T + 1,
      createdBy: null,
    });
    expect(await isLoginCodeUsable(database.handle.db, 'hash-once', T + 2)).toBe(false);
    expect(await consumeLoginCode(database.handle.db, 'hash-once', T + 2)).toBeUndefined();
  });

  it('gives exactly one winner to 10 parallel consumptions of one code', async () => {
    await insertLoginCode(database.handle.db, {
      codeHash: 'hash-race',
      kind: 'admin',
      subjectCallsign: null,
      createdAt: T,
      expiresAt: T + 24 * 60 * MINUTE,
    });

    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        database.handle.db
          .transaction()
          .execute((trx) => consumeLoginCode(trx, 'hash-race', T + i)),
      ),
    );

    const winners = attempts.filter((code) => code !== undefined);
    expect(winners).toHaveLength(1);
    expect(winners[0]?.kind).toBe('admin');
  });

  it('refuses an expired code, and one that expires at this very moment', async () => {
    await insertLoginCode(database.handle.db, {
      codeHash: 'hash-expired',
      kind: 'admin',
      subjectCallsign: null,
      createdAt: T,
      expiresAt: T + MINUTE,
    });

    expect(await isLoginCodeUsable(database.handle.db, 'hash-expired', T + MINUTE)).toBe(false);
    expect(await consumeLoginCode(database.handle.db, 'hash-expired', T + MINUTE)).toBeUndefined();
    expect(
      await consumeLoginCode(database.handle.db, 'hash-expired', T + 2 * MINUTE),
    ).toBeUndefined();
    const row = await database.handle.db
      .selectFrom('login_codes')
      .select('used_at')
      .where('code_hash', '=', 'hash-expired')
      .executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
  });

  it('knows nothing of an unknown hash', async () => {
    expect(await isLoginCodeUsable(database.handle.db, 'hash-unknown', T)).toBe(false);
    expect(await consumeLoginCode(database.handle.db, 'hash-unknown', T)).toBeUndefined();
  });
});
