import Fastify from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it, vi } from 'vitest';
import { describeWithMigratedDatabase } from '../db/engine-suite.testing.js';
import { countsAsFailure, TooManyRequestsError } from '../errors.js';
import { DatabaseFailureBudget, type FailureBudget } from '../modules/auth/failure-budget.js';
import { registerFailureBudget, spendingBudget } from './failure-budget.js';

async function refusal(budget: FailureBudget, address: string): Promise<unknown> {
  try {
    await budget.reserve(address);
    return undefined;
  } catch (error) {
    return error;
  }
}

const perMinute = (failures: number) => ({ failures, windowMs: 60_000 });

/** Counts a failed guess: a reservation that is kept. */
async function fail(budget: FailureBudget, address: string): Promise<void> {
  await budget.reserve(address);
}

describeWithMigratedDatabase('DatabaseFailureBudget', (database) => {
  it('answers 429 with Retry-After once an address spent its budget, until the minute ends', async () => {
    const clock = { now: 2_000_000 };
    const budget = new DatabaseFailureBudget(database.handle.db, perMinute(3), () => clock.now);
    for (let attempt = 0; attempt < 3; attempt += 1) await fail(budget, '10.0.0.1');
    clock.now += 20_000;
    const refused = await refusal(budget, '10.0.0.1');
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).headers['retry-after']).toBe('40');
    expect(await refusal(budget, '10.0.0.2')).toBeUndefined();
    clock.now += 40_000;
    // A new window counts from one again.
    expect(await refusal(budget, '10.0.0.1')).toBeUndefined();
    await fail(budget, '10.0.0.1');
    expect(await refusal(budget, '10.0.0.1')).toBeUndefined();
  });

  it('counts over the configured window: the default 120 in 10 minutes', async () => {
    const clock = { now: 3_000_000 };
    const budget = new DatabaseFailureBudget(
      database.handle.db,
      { failures: 120, windowMs: 10 * 60_000 },
      () => clock.now,
    );
    for (let attempt = 0; attempt < 120; attempt += 1) {
      clock.now += 1_000;
      await fail(budget, '10.0.2.1');
    }
    // Two minutes after the first failure, the 121st waits out the other eight.
    clock.now = 3_000_000 + 2 * 60_000 + 1_000;
    const refused = await refusal(budget, '10.0.2.1');
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).headers['retry-after']).toBe('480');
    clock.now = 3_000_000 + 10 * 60_000;
    expect(await refusal(budget, '10.0.2.1')).toBeInstanceOf(TooManyRequestsError);
    clock.now += 1_000;
    expect(await refusal(budget, '10.0.2.1')).toBeUndefined();
  });

  it('gives a released attempt back, but only to the window it was taken from', async () => {
    const clock = { now: 5_000_000 };
    const budget = new DatabaseFailureBudget(database.handle.db, perMinute(2), () => clock.now);
    const first = await budget.reserve('10.0.1.1');
    await fail(budget, '10.0.1.1');
    expect(await refusal(budget, '10.0.1.1')).toBeInstanceOf(TooManyRequestsError);
    await budget.release(first);
    expect(await refusal(budget, '10.0.1.1')).toBeUndefined();

    const stale = await budget.reserve('10.0.1.2');
    clock.now += 60_000;
    await fail(budget, '10.0.1.2');
    // Releasing the finished window's attempt must not free one in the new window.
    await budget.release(stale);
    await fail(budget, '10.0.1.2');
    expect(await refusal(budget, '10.0.1.2')).toBeInstanceOf(TooManyRequestsError);
  });

  it('reserves at most the budget of attempts arriving at once through several instances', async () => {
    const other = database.scratch.open();
    const first = new DatabaseFailureBudget(database.handle.db, perMinute(20));
    const second = new DatabaseFailureBudget(other.db, perMinute(20));
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        refusal(index % 2 === 0 ? first : second, '192.0.2.9'),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(20);
    expect(outcomes.filter((outcome) => outcome instanceof TooManyRequestsError).length).toBe(40);
    expect(await refusal(first, '192.0.2.9')).toBeInstanceOf(TooManyRequestsError);
    expect(await refusal(second, '192.0.2.9')).toBeInstanceOf(TooManyRequestsError);
    const row = await database.handle.db
      .selectFrom('failure_windows')
      .select('failures')
      .where('address', '=', '192.0.2.9')
      .executeTakeFirstOrThrow();
    expect(row.failures).toBe(20);
  });
});

/** The attempts an address holds in its window. */
async function heldBy(db: Kysely<Database>, address: string): Promise<number> {
  const row = await db
    .selectFrom('failure_windows')
    .select('failures')
    .where('address', '=', address)
    .executeTakeFirst();
  return row?.failures ?? 0;
}

describeWithMigratedDatabase('the guesser and the guess ceiling (docs/api.md)', (database) => {
  const held = (address: string) => heldBy(database.handle.db, address);
  it('counts an IPv6 /64 as one guesser, and an IPv4-mapped address as the IPv4 one', async () => {
    const clock = { now: 7_000_000 };
    const budget = new DatabaseFailureBudget(database.handle.db, perMinute(2), () => clock.now);
    await fail(budget, '2001:db8:5:6::1');
    await fail(budget, '2001:db8:5:6:ffff::2');
    expect(await refusal(budget, '2001:db8:5:6::3')).toBeInstanceOf(TooManyRequestsError);
    expect(await refusal(budget, '2001:db8:5:7::1')).toBeUndefined();
    await fail(budget, '198.51.100.4');
    await fail(budget, '::ffff:198.51.100.4');
    expect(await refusal(budget, '198.51.100.4')).toBeInstanceOf(TooManyRequestsError);
  });

  it('past the ceiling every stranger waits out the minute; a member is never refused by it', async () => {
    const clock = { now: 8_000_000 };
    const refusedByCeiling: number[] = [];
    const budget = new DatabaseFailureBudget(
      database.handle.db,
      { failures: 100, windowMs: 10 * 60_000, ceilingPerMinute: 5 },
      () => clock.now,
      () => refusedByCeiling.push(clock.now),
    );
    // A given-back attempt (no failed guess) leaves room under the ceiling.
    await budget.release(await budget.reserve('203.0.113.99'));
    for (let guesser = 1; guesser <= 5; guesser += 1) await fail(budget, `203.0.113.${guesser}`);
    clock.now += 15_000;
    const refused = await refusal(budget, '203.0.113.6');
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).headers['retry-after']).toBe('45');
    expect(refusedByCeiling).toHaveLength(1);
    // The refused guess spent nothing of its own budget, and a member is not slowed.
    expect(await held('203.0.113.6')).toBe(0);
    await budget.release(await budget.reserve('203.0.113.6', 'member'));
    clock.now += 45_000;
    expect(await refusal(budget, '203.0.113.6')).toBeUndefined();
  });

  it('while the ceiling is reached, a stranger’s guess is refused with one read and writes nothing', async () => {
    const clock = { now: 9_000_000 };
    const db = database.handle.db;
    const refusedByCeiling: number[] = [];
    const budget = new DatabaseFailureBudget(
      db,
      { failures: 2, windowMs: 10 * 60_000, ceilingPerMinute: 3 },
      () => clock.now,
      () => refusedByCeiling.push(clock.now),
    );
    for (let guesser = 1; guesser <= 3; guesser += 1) await fail(budget, `198.18.0.${guesser}`);
    const writes = ['insertInto', 'updateTable', 'deleteFrom'].map((method) =>
      vi.spyOn(db, method as 'insertInto'),
    );
    try {
      clock.now += 20_000;
      for (let guesser = 50; guesser <= 69; guesser += 1) {
        const refused = await refusal(budget, `198.18.0.${guesser}`);
        expect((refused as TooManyRequestsError).headers['retry-after']).toBe('40');
      }
      expect(writes.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
      expect(refusedByCeiling).toHaveLength(20);
      expect(await held('198.18.0.50')).toBe(0);
    } finally {
      for (const spy of writes) spy.mockRestore();
    }
    // A member is never refused by the ceiling; the minute over, strangers are evaluated again.
    await budget.release(await budget.reserve('198.18.0.51', 'member'));
    clock.now += 41_000;
    expect(await refusal(budget, '198.18.0.52')).toBeUndefined();
  });

  it('holds the ceiling across instances sharing the database', async () => {
    const other = database.scratch.open();
    const size = { failures: 100, windowMs: 60_000, ceilingPerMinute: 10 };
    const first = new DatabaseFailureBudget(database.handle.db, size);
    const second = new DatabaseFailureBudget(other.db, size);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        refusal(index % 2 === 0 ? first : second, `2001:db8:${index}::1`),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(10);
  });
});

describeWithMigratedDatabase('spendingBudget', (database) => {
  it('keeps the attempt only for refusals marked as failed guesses and answers called failures', async () => {
    const budget = new DatabaseFailureBudget(database.handle.db, perMinute(1));
    await expect(
      spendingBudget(budget, 'a', () => Promise.reject(new Error('not a guess'))),
    ).rejects.toThrow('not a guess');
    await expect(spendingBudget(budget, 'a', () => Promise.resolve(true))).resolves.toBe(true);
    await expect(
      spendingBudget(budget, 'a', () => Promise.reject(countsAsFailure(new Error('wrong')))),
    ).rejects.toThrow('wrong');
    await expect(spendingBudget(budget, 'a', () => Promise.resolve(1))).rejects.toBeInstanceOf(
      TooManyRequestsError,
    );

    const failedAnswer = (answer: unknown) => answer === false;
    await expect(
      spendingBudget(budget, 'b', () => Promise.resolve(true), { failedAnswer }),
    ).resolves.toBe(true);
    await expect(
      spendingBudget(budget, 'b', () => Promise.resolve(false), { failedAnswer }),
    ).resolves.toBe(false);
    await expect(
      spendingBudget(budget, 'b', () => Promise.resolve(true), { failedAnswer }),
    ).rejects.toBeInstanceOf(TooManyRequestsError);
  });

  it('does not start the work when no attempt is left', async () => {
    const budget = new DatabaseFailureBudget(database.handle.db, perMinute(1));
    await fail(budget, 'c');
    let started = false;
    await expect(
      spendingBudget(budget, 'c', () => {
        started = true;
        return Promise.resolve();
      }),
    ).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(started).toBe(false);
  });
});

describeWithMigratedDatabase('registerFailureBudget', (database) => {
  /** The database's budget, its give-back slowed as a busy PostgreSQL may slow it. */
  function slowToGiveBack(budget: FailureBudget): FailureBudget {
    return {
      reserve: (address) => budget.reserve(address),
      release: async (reservation) => {
        await sleep(50);
        await budget.release(reservation);
      },
    };
  }
  const held = (address: string) => heldBy(database.handle.db, address);

  it('gives the attempt back before the answer leaves, also when the handler sends it itself', async () => {
    const budget = slowToGiveBack(new DatabaseFailureBudget(database.handle.db, perMinute(5)));
    const app = Fastify({ logger: false });
    registerFailureBudget(app, budget);
    app.get('/sent', { config: { failureBudget: true } }, (_request, reply) =>
      reply.type('text/plain').send('sent by the handler'),
    );
    app.get('/returned', { config: { failureBudget: true } }, () =>
      Promise.resolve({ returned: true }),
    );
    app.get('/refused', { config: { failureBudget: true } }, () =>
      Promise.reject(countsAsFailure(new Error('wrong code'))),
    );
    await app.ready();
    try {
      const sent = await app.inject({ url: '/sent', remoteAddress: '192.0.2.30' });
      expect(sent.body).toBe('sent by the handler');
      expect(await held('192.0.2.30')).toBe(0);
      const returned = await app.inject({ url: '/returned', remoteAddress: '192.0.2.31' });
      expect(returned.json()).toEqual({ returned: true });
      expect(await held('192.0.2.31')).toBe(0);
      // A failed guess still stays counted.
      const refused = await app.inject({ url: '/refused', remoteAddress: '192.0.2.32' });
      expect(refused.statusCode).toBe(500);
      expect(await held('192.0.2.32')).toBe(1);
    } finally {
      await app.close();
    }
  });
});
