import { webcrypto, X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { unzipSync } from 'fflate';
import forge from 'node-forge';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  apiPaths,
  instructionsResponseSchema,
  takEnrollmentTokenResponseSchema,
  takPaths,
  ZIP_DATA_URL_PREFIX,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import {
  buildTakEnrollApp,
  TAK_ENROLL_PATHS,
} from '../../src/modules/tak/tak-enrollment-face-routes.js';
import { opensslCsr } from '../support/tak-client.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { certificateInPfx } from '../support/pfx-files.js';
import { openInjectPortal, openTestPortal, type InjectPortal } from '../support/inject-portal.js';

// The service packs keystores and truststores in worker threads (`openPortal`'s
// `packInWorkers`, ca/pkcs12-workers.ts), and builds and signs members' certificates there
// (ca/leaf.ts), so that a burst of downloads never holds the event loop with their key
// derivations or their certificates' ASN.1 and signatures (bench/RESULTS.md, section 8b).

/**
 * Counts the PKCS#12 key derivations made on this (the main) thread: node-forge's PKCS#12 KDF
 * (legacy) and WebCrypto's PBKDF2 (modern) are where every one of them is made.
 */
function mainThreadDerivations(): () => number {
  const pkcs12Kdf = vi.spyOn(forge.pkcs12, 'generateKey');
  const pbkdf2 = vi.spyOn(webcrypto.subtle, 'deriveBits');
  return () => pkcs12Kdf.mock.calls.length + pbkdf2.mock.calls.length;
}

/**
 * Counts the certificates built and the signatures made on this (the main) thread: every leaf
 * is built by @peculiar/x509's generator and signed through WebCrypto's `sign`.
 */
function mainThreadCertificateWork(): () => number {
  const built = vi.spyOn(x509.X509CertificateGenerator, 'create');
  const signed = vi.spyOn(webcrypto.subtle, 'sign');
  return () => built.mock.calls.length + signed.mock.calls.length;
}

/**
 * A key download, the TAK packages and a TAK enrollment (a device's CSR) for a new member: the
 * certificates recorded (their purposes), the downloaded .pfx, and how many certificates were
 * built or signed on the main thread meanwhile.
 */
async function mintEveryWay(
  portal: InjectPortal,
  callsign: string,
): Promise<{ purposes: string[]; pfx: Buffer; onMainThread: number }> {
  const key = await portal.addMember(callsign);
  const token = await portal.api('mtls', 'POST', takPaths.enrollmentToken, { key });
  expect(token.status, token.text).toBe(200);
  const { token: secret } = takEnrollmentTokenResponseSchema.parse(token.json());
  const device = await opensslCsr({ subject: `/CN=${callsign}`, key: 'ec' });
  const takFace = await buildTakEnrollApp(portal.portal, { logger: false });
  try {
    const work = mainThreadCertificateWork();
    const download = await portal.api('mtls', 'GET', apiPaths.keyDownload(callsign), { key });
    expect(download.status, download.text).toBe(200);
    const packages = await portal.api('mtls', 'GET', apiPaths.instructions, { key });
    expect(packages.status, packages.text).toBe(200);
    const enrolled = await takFace.inject({
      method: 'POST',
      url: `${TAK_ENROLL_PATHS.signClientV2}?clientUid=ANDROID-${callsign}`,
      headers: {
        authorization: `Basic ${Buffer.from(`${callsign}:${secret}`).toString('base64')}`,
        'content-type': 'text/plain',
      },
      payload: device.csrPem,
    });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    const onMainThread = work();
    const rows = await portal.portal.database.db
      .selectFrom('issued_certificates')
      .select('purpose')
      .where('callsign', '=', callsign)
      .orderBy('purpose')
      .execute();
    return { purposes: rows.map((row) => row.purpose), pfx: download.body, onMainThread };
  } finally {
    await takFace.close();
  }
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

  it('the certificates of a key download, the TAK packages and a TAK enrollment: built and signed in the workers, none on the main thread', async () => {
    const minted = await mintEveryWay(portal, 'Offload2');
    // The first is the key the member signs in with.
    expect(minted.purposes).toEqual(['browser', 'browser', 'tak-enroll', 'tak-package']);
    expect(minted.onMainThread).toBe(0);
    // The CA's signature, made in a worker with the CA's key.
    const pfxFile = path.join(portal.workDir, 'offload2.pfx');
    await writeFile(pfxFile, minted.pfx);
    const certificate = new X509Certificate(
      await certificateInPfx({ pfxFile, password: 'Offload2' }),
    );
    const issuing = new X509Certificate(portal.portal.ca.issuingCertificatePem);
    expect(certificate.checkIssued(issuing)).toBe(true);
    expect(certificate.verify(issuing.publicKey)).toBe(true);
    expect(certificate.subject).toBe('CN=Offload2');
  });
});

describe.each(testEngines())('certificates signed on the main thread on $name', (engine) => {
  let portal: InjectPortal;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env });
    return portal;
  });

  it('without the workers (the CLI, most tests) the same calls are counted: the count sees them', async () => {
    const minted = await mintEveryWay(portal, 'Onthread1');
    expect(minted.purposes).toEqual(['browser', 'browser', 'tak-enroll', 'tak-package']);
    // Three certificates, each built and signed here.
    expect(minted.onMainThread).toBe(6);
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
