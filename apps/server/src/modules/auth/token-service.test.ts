import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JWT_KEY_FILE, TokenService } from './token-service.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'portal-jwt-key-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ONE_MINUTE = 60_000;

describe('the JWT signing key', () => {
  it('is made once, private, and kept: a token from before a restart still verifies', async () => {
    const first = await TokenService.open(dir);
    const { jwt } = await first.issue({ scope: 'member', subject: 'Eagle1', ttlMs: ONE_MINUTE });
    expect((await stat(path.join(dir, JWT_KEY_FILE))).mode & 0o777).toBe(0o600);
    const restarted = await TokenService.open(dir);
    expect((await restarted.verify(jwt))?.sub).toBe('Eagle1');
  });

  it('is one key when several instances create it at the same moment', async () => {
    const instances = await Promise.all(Array.from({ length: 6 }, () => TokenService.open(dir)));
    for (const signer of instances) {
      const { jwt } = await signer.issue({ scope: 'member', subject: 'Eagle1', ttlMs: ONE_MINUTE });
      for (const verifier of instances) expect(await verifier.verify(jwt)).toBeDefined();
    }
    expect(await readdir(dir)).toEqual([JWT_KEY_FILE]);
  });

  it('tightens a key file that others can read', async () => {
    await TokenService.open(dir);
    await chmod(path.join(dir, JWT_KEY_FILE), 0o644);
    await TokenService.open(dir);
    expect((await stat(path.join(dir, JWT_KEY_FILE))).mode & 0o777).toBe(0o600);
  });
});
