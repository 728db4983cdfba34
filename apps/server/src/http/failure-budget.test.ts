import { describe, expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../db/engine-suite.testing.js';
import { TooManyRequestsError } from '../errors.js';
import {
  countsAsFailure,
  DatabaseFailureBudget,
  InMemoryFailureBudget,
  spendingBudget,
  type FailureBudget,
} from './failure-budget.js';

async function refusal(budget: FailureBudget, address: string): Promise<unknown> {
  try {
    await budget.assertAllowed(address);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** The rule both stores keep: N failures a minute per address, then 429 until the minute ends. */
async function expectBudgetOfThree(budget: FailureBudget, clock: { now: number }): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await budget.assertAllowed('10.0.0.1');
    await budget.recordFailure('10.0.0.1');
  }
  clock.now += 20_000;
  const refused = await refusal(budget, '10.0.0.1');
  expect(refused).toBeInstanceOf(TooManyRequestsError);
  expect((refused as TooManyRequestsError).headers['retry-after']).toBe('40');
  expect(await refusal(budget, '10.0.0.2')).toBeUndefined();
  clock.now += 40_000;
  expect(await refusal(budget, '10.0.0.1')).toBeUndefined();
  // A new window counts from one again.
  await budget.recordFailure('10.0.0.1');
  expect(await refusal(budget, '10.0.0.1')).toBeUndefined();
}

describe('InMemoryFailureBudget', () => {
  it('answers 429 with Retry-After once an address spent its budget, until the minute ends', async () => {
    const clock = { now: 1_000_000 };
    await expectBudgetOfThree(new InMemoryFailureBudget(3, () => clock.now), clock);
  });
});

describe('spendingBudget', () => {
  it('counts only refusals marked as failed guesses, after the work has ended', async () => {
    const budget = new InMemoryFailureBudget(1);
    await expect(
      spendingBudget(budget, 'a', () => Promise.reject(new Error('not a guess'))),
    ).rejects.toThrow('not a guess');
    expect(await refusal(budget, 'a')).toBeUndefined();
    await expect(
      spendingBudget(budget, 'a', () => Promise.reject(countsAsFailure(new Error('wrong')))),
    ).rejects.toThrow('wrong');
    await expect(spendingBudget(budget, 'a', () => Promise.resolve(1))).rejects.toBeInstanceOf(
      TooManyRequestsError,
    );
  });
});

describeWithMigratedDatabase('DatabaseFailureBudget', (database) => {
  it('keeps the same rule in the failure_windows table', async () => {
    const clock = { now: 2_000_000 };
    await expectBudgetOfThree(
      new DatabaseFailureBudget(database.handle.db, 3, () => clock.now),
      clock,
    );
  });

  it('is one budget for every instance on the database, also when they count at once', async () => {
    const other = database.scratch.open();
    const first = new DatabaseFailureBudget(database.handle.db, 20);
    const second = new DatabaseFailureBudget(other.db, 20);
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? first : second).recordFailure('192.0.2.9'),
      ),
    );
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
