// Test support (no production code imports this): runs the real OpenSSL CLI.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface OpensslResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `openssl args…`; resolves with the exit code instead of rejecting on failure. */
export function runOpenssl(args: readonly string[]): Promise<OpensslResult> {
  return new Promise((resolve) => {
    execFile('openssl', args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `openssl args…` and returns stdout + stderr, failing loudly on a non-zero exit. */
export async function openssl(args: readonly string[]): Promise<string> {
  const result = await runOpenssl(args);
  if (result.code !== 0) {
    throw new Error(`openssl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return result.stdout + result.stderr;
}

export async function makeTempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'callsign-ca-test-'));
}

export async function removeTempDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await fs.rm(dir, { recursive: true, force: true });
}

/**
 * A throw-away self-signed P-256 certificate made by the OpenSSL CLI (not by the CA under test):
 * writes `{name}.key` and `{name}.pem` into `dir` and returns the certificate's path.
 */
export async function selfSignedCertificate(
  dir: string,
  name: string,
  options: { subject?: string; days?: number; serial?: string } = {},
): Promise<string> {
  const file = path.join(dir, `${name}.pem`);
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    path.join(dir, `${name}.key`),
    '-out',
    file,
    '-subj',
    options.subject ?? `/CN=${name}`,
    '-days',
    String(options.days ?? 1),
    ...(options.serial === undefined ? [] : ['-set_serial', options.serial]),
  ]);
  return file;
}
