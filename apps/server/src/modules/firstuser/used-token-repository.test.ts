import { expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { recordUsedToken } from './used-token-repository.js';

const T = 1_767_225_600_000;

describeWithMigratedDatabase('used token repository', (database) => {
  it('records a jti the first time and returns false the second', async () => {
    const token = { jti: 'jti-twice', usedAt: T, expiresAt: T + 900_000 };

    expect(await recordUsedToken(database.handle.db, token)).toBe(true);
    expect(await recordUsedToken(database.handle.db, { ...token, usedAt: T + 1 })).toBe(false);

    const rows = await database.handle.db
      .selectFrom('used_tokens')
      .selectAll()
      .where('jti', '=', 'jti-twice')
      .execute();
    expect(rows).toEqual([{ jti: 'jti-twice', used_at: T, expires_at: T + 900_000 }]);
  });

  it('gives one winner to parallel uses of one token, each in its own transaction', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        database.handle.db
          .transaction()
          .execute((trx) => recordUsedToken(trx, { jti: 'jti-race', usedAt: T, expiresAt: T + 1 })),
      ),
    );

    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
