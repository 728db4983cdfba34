import { X509Certificate } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestPortal, type TestPortal } from './support/test-portal.js';

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 1_200; tries++) {
    if (condition()) return;
    await sleep(50);
  }
  throw new Error(`gave up waiting until ${what}`);
}

describe('the service’s key pool', () => {
  let portal: TestPortal;

  beforeAll(async () => {
    portal = await startTestPortal({
      env: { PORTAL_KEY_POOL_SIZE: '2', PORTAL_KEY_POOL_LOW_WATER: '0' },
    });
  });

  afterAll(async () => {
    await portal.destroy();
  });

  it('fills with keys of the configured algorithm, hands one to a download, and stops with the portal', async () => {
    const pool = portal.portal.keyPool;
    expect(pool).toBeDefined();
    if (pool === undefined) return;
    await until(() => pool.available === 2, 'the pool is full');

    const take = vi.spyOn(pool, 'take');
    await portal.addMember('Pooled1');
    const key = await portal.issueKey('Pooled1');

    // Two keys issued (addMember's and issueKey's), both taken from the pool.
    expect(take).toHaveBeenCalledTimes(2);
    const given = take.mock.results.map((result) => result.value as ReturnType<typeof pool.take>);
    expect(given.every((pair) => pair !== undefined)).toBe(true);
    const spki = new X509Certificate(key.certificatePem).publicKey.export({
      type: 'spki',
      format: 'der',
    });
    expect(spki).toEqual(given[1]?.publicKeyDer);

    await portal.stop();
    expect(pool.running).toBe(false);
    expect(pool.available).toBe(0);
  });
});
