import { webcrypto } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import forge from 'node-forge';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiPaths, instructionsResponseSchema, ZIP_DATA_URL_PREFIX } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { certificateInPfx } from '../support/pfx-files.js';
import { openInjectPortal, openTestPortal, type InjectPortal } from '../support/inject-portal.js';

// The service packs keystores and truststores in worker threads (`openPortal`'s
// `packInWorkers`, ca/pkcs12-workers.ts), so that a burst of downloads never holds the event
// loop with their key derivations (bench/RESULTS.md, section 8b).

/**
 * Counts the PKCS#12 key derivations made on this (the main) thread: node-forge's PKCS#12 KDF
 * (legacy) and WebCrypto's PBKDF2 (modern) are where every one of them is made.
 */
function mainThreadDerivations(): () => number {
  const pkcs12Kdf = vi.spyOn(forge.pkcs12, 'generateKey');
  const pbkdf2 = vi.spyOn(webcrypto.subtle, 'deriveBits');
  return () => pkcs12Kdf.mock.calls.length + pbkdf2.mock.calls.length;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(testEngines())('keystores packed in worker threads on $name', (engine) => {
  let portal: InjectPortal;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env, packInWorkers: true });
    return portal;
  });

  it('a key download and the TAK packages: the files open, and the main thread derived no key', async () => {
    const key = await portal.addMember('Offload1');
    const derivations = mainThreadDerivations();

    const download = await portal.api('mtls', 'GET', apiPaths.keyDownload('Offload1'), { key });
    expect(download.status, download.text).toBe(200);
    const pfxFile = path.join(portal.workDir, 'download.pfx');
    await writeFile(pfxFile, download.body);
    expect(await certificateInPfx({ pfxFile, password: 'Offload1' })).toContain(
      'BEGIN CERTIFICATE',
    );

    const packages = await portal.api('mtls', 'GET', apiPaths.instructions, { key });
    expect(packages.status, packages.text).toBe(200);
    const [atak] = instructionsResponseSchema.parse(packages.json()).files.tak;
    const zip = unzipSync(Buffer.from(atak!.data.slice(ZIP_DATA_URL_PREFIX.length), 'base64'));
    const keystore = Object.keys(zip).find((name) => name.endsWith('Offload1.p12'));
    const truststore = Object.keys(zip).find((name) => /truststore-.*\.p12$/.test(name));
    expect(keystore).toBeDefined();
    expect(truststore).toBeDefined();
    const keystoreFile = path.join(portal.workDir, 'tak-keystore.p12');
    await writeFile(keystoreFile, zip[keystore!]!);
    expect(await certificateInPfx({ pfxFile: keystoreFile, password: 'Offload1' })).toContain(
      'BEGIN CERTIFICATE',
    );

    expect(derivations()).toBe(0);
    expect(portal.portal.pkcs12Workers?.threads.length).toBeGreaterThan(0);
  });
});

describe('the packing workers of a portal', () => {
  it('start with the portal and end when it closes', async () => {
    const opened = await openTestPortal({ packInWorkers: true });
    const threads = opened.portal.pkcs12Workers?.threads ?? [];
    expect(threads.length).toBeGreaterThan(0);
    const exits = threads.map((thread) => new Promise((ended) => thread.once('exit', ended)));
    await opened.destroy();
    await Promise.all(exits);
    expect(threads.every((thread) => thread.threadId === -1)).toBe(true);
  });
});
