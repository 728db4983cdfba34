// Runs once per test run, before any test file: the CAs test portals start from
// (src/ca/test-ca.testing.ts), instead of a new RSA-4096 root per test portal.
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { makeTestCas } from '../src/ca/test-ca.testing.js';

export default async function makeRunCas(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'portal-test-cas-'));
  project.provide('testCaDirs', await makeTestCas(root));
  return () => rm(root, { recursive: true, force: true });
}
