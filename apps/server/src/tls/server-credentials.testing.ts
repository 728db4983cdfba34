import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { makeTempDir, removeTempDir, selfSignedCertificate } from '../ca/openssl-cli.testing.js';
import type { TlsCredentials } from './dual-face-server.js';

/**
 * A self-signed certificate for `portal.test`, made before the test file's tests and removed
 * after them: what a listener under test serves.
 */
export function selfSignedServerCredentials(): () => TlsCredentials {
  let dir: string | undefined;
  let credentials: TlsCredentials | undefined;
  beforeAll(async () => {
    dir = await makeTempDir();
    const certFile = await selfSignedCertificate(dir, 'server', { subject: '/CN=portal.test' });
    credentials = {
      cert: await readFile(certFile, 'utf8'),
      key: await readFile(path.join(dir, 'server.key'), 'utf8'),
    };
  });
  afterAll(async () => {
    await removeTempDir(dir);
  });
  return () => {
    if (credentials === undefined) throw new Error('the credentials are made before the tests');
    return credentials;
  };
}
