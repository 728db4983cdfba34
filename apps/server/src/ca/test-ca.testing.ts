import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { inject } from 'vitest';
import { CertificateAuthority, type CertificateAuthorityOptions } from './authority.js';
import { CA_FILES, readCaFiles, writeCaFiles } from './ca-files.js';
import { createCaMaterial } from './hierarchy.js';

// Test support: a new CA costs an RSA-4096 and an RSA-3072 key, seconds on a busy machine. The
// test run makes one CA per organisation the tests use, once (test/global-setup.ts), and every
// test CA or test portal that does not test CA creation starts from a copy of it.

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's CA directories by organisation (the host name a CA is named after); absent
     * where the test project has no global set-up that makes them.
     */
    testCaDirs?: Record<string, string>;
  }
}

/** The host names test portals and test CAs are made for; another gets a CA of its own. */
export const TEST_CA_ORGANIZATIONS = ['portal.localhost', 'portal.example.org'];

/** Makes the run's CAs under `root`: one directory of CA files per organisation. */
export async function makeTestCas(root: string): Promise<Record<string, string>> {
  const made = await Promise.all(
    TEST_CA_ORGANIZATIONS.map(async (organization) => {
      const dir = await mkdtemp(path.join(root, `${organization}-`));
      const material = await createCaMaterial({
        organization,
        now: new Date(),
        passphrase: undefined,
      });
      await writeCaFiles(dir, material);
      return [organization, dir] as const;
    }),
  );
  return Object.fromEntries(made);
}

/**
 * Copies the run's CA of `organization` into `caDir` when `caDir` holds no CA yet, so that
 * loading it finds the CA a first start would have made for that host, with other keys. False
 * (nothing copied) when the run has no CA for it: the portal then makes its own.
 */
export async function seedTestCa(caDir: string, organization: string): Promise<boolean> {
  const source = inject('testCaDirs')?.[organization];
  if (source === undefined || (await readCaFiles(caDir)) !== undefined) return false;
  await mkdir(caDir, { recursive: true, mode: 0o700 });
  for (const file of Object.values(CA_FILES)) {
    // copyFile keeps the mode: 0600 for the keys.
    await copyFile(path.join(source, file), path.join(caDir, file));
  }
  return true;
}

/** `CertificateAuthority.loadOrCreate`, starting from the run's CA for that host when there is one. */
export async function loadTestCa(
  options: CertificateAuthorityOptions,
): Promise<CertificateAuthority> {
  if (options.passphrase === undefined) {
    await seedTestCa(options.dir, new URL(options.publicBaseUrl).hostname);
  }
  return CertificateAuthority.loadOrCreate(options);
}
