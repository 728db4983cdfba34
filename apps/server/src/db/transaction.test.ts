import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { describeWithMigratedDatabase } from './engine-suite.testing.js';
import { inTransaction, lockForTransaction } from './transaction.js';

const T = 1_767_225_600_000;

describeWithMigratedDatabase('transactions', (database) => {
  const inviteCount = async (code: string) =>
    (
      await database.handle.db
        .selectFrom('invite_codes')
        .select('code')
        .where('code', '=', code)
        .execute()
    ).length;

  it('a failing statement inside db.transaction() leaves nothing written', async () => {
    const attempt = database.handle.db.transaction().execute(async (trx) => {
      await trx.insertInto('invite_codes').values({ code: 'ROLLBACK', created_at: T }).execute();
      await trx
        .insertInto('members')
        .values({
          callsign: 'Delta',
          status: 'pending',
          invite_code: 'ROLLBACK',
          created_at: T,
          updated_at: T,
        })
        .execute();
      // Duplicate primary key: fails.
      await trx.insertInto('invite_codes').values({ code: 'ROLLBACK', created_at: T }).execute();
    });

    await expect(attempt).rejects.toThrow();
    expect(await inviteCount('ROLLBACK')).toBe(0);
    const members = await database.handle.db.selectFrom('members').select('callsign').execute();
    expect(members).toEqual([]);
  });

  it('inTransaction joins the caller’s transaction, so the caller’s rollback undoes it', async () => {
    const attempt = database.handle.db.transaction().execute(async (trx) => {
      await inTransaction(trx, (inner) =>
        inner.insertInto('invite_codes').values({ code: 'JOINED', created_at: T }).execute(),
      );
      throw new Error('caller gives up');
    });

    await expect(attempt).rejects.toThrow('caller gives up');
    expect(await inviteCount('JOINED')).toBe(0);
  });

  it('inTransaction opens a transaction of its own when given the database', async () => {
    const attempt = inTransaction(database.handle.db, async (trx) => {
      expect(trx.isTransaction).toBe(true);
      await trx.insertInto('invite_codes').values({ code: 'OWN', created_at: T }).execute();
      throw new Error('fails after writing');
    });

    await expect(attempt).rejects.toThrow('fails after writing');
    expect(await inviteCount('OWN')).toBe(0);
  });

  it('lockForTransaction serialises read-then-write rules: two racing removals keep one', async () => {
    await database.handle.db
      .insertInto('invite_codes')
      .values([
        { code: 'KEEP1', created_at: T },
        { code: 'KEEP2', created_at: T },
      ])
      .execute();
    // Rule under test: "delete my code only while another one remains".
    const removeIfAnotherRemains = (code: string) =>
      database.handle.db.transaction().execute(async (trx) => {
        await lockForTransaction(trx, 'keep-one-test');
        const remaining = await trx
          .selectFrom('invite_codes')
          .select('code')
          .where('code', 'like', 'KEEP%')
          .execute();
        // Give the other transaction every chance to interleave.
        await sleep(100);
        if (remaining.length < 2) {
          return false;
        }
        await trx.deleteFrom('invite_codes').where('code', '=', code).execute();
        return true;
      });

    const outcomes = await Promise.all([
      removeIfAnotherRemains('KEEP1'),
      removeIfAnotherRemains('KEEP2'),
    ]);

    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(
      await database.handle.db
        .selectFrom('invite_codes')
        .select('code')
        .where('code', 'like', 'KEEP%')
        .execute(),
    ).toHaveLength(1);
  });
});
