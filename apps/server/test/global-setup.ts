// Runs once per test run, before any test file: the CAs test portals start from
// (src/ca/test-ca.testing.ts), instead of a new RSA-4096 root per test portal, and the stock of
// member key pairs they take from (src/ca/test-key-stock.testing.ts), made once per clone.
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { makeTestCas } from '../src/ca/test-ca.testing.js';
import { makeTestKeyStock } from '../src/ca/test-key-stock.testing.js';

export default async function makeRunCas(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'portal-test-cas-'));
  const cacheDir = fileURLToPath(
    new URL('../../../node_modules/.cache/callsign-portal', import.meta.url),
  );
  const [caDirs, keyStock] = await Promise.all([makeTestCas(root), makeTestKeyStock(cacheDir)]);
  project.provide('testCaDirs', caDirs);
  project.provide('testKeyStock', keyStock);
  return () => rm(root, { recursive: true, force: true });
}
