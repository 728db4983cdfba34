import { describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../errors.js';
import { InMemoryFailureBudget } from './failure-budget.js';

describe('InMemoryFailureBudget', () => {
  it('answers 429 with Retry-After once an address spent its budget, until the minute ends', () => {
    let now = 1_000_000;
    const budget = new InMemoryFailureBudget(3, () => now);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      budget.assertAllowed('10.0.0.1');
      budget.recordFailure('10.0.0.1');
    }
    now += 20_000;
    let refused: unknown;
    try {
      budget.assertAllowed('10.0.0.1');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).headers['retry-after']).toBe('40');
    expect(() => {
      budget.assertAllowed('10.0.0.2');
    }).not.toThrow();
    now += 40_000;
    expect(() => {
      budget.assertAllowed('10.0.0.1');
    }).not.toThrow();
  });
});
