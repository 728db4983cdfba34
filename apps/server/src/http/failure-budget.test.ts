import Fastify from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
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
  const held = async (address: string) =>
    (
      await database.handle.db
        .selectFrom('failure_windows')
        .select('failures')
        .where('address', '=', address)
        .executeTakeFirst()
    )?.failures ?? 0;

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
