import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { IssuedCertificate } from '../../ca/authority.js';
import { normalizeSerial } from '../../ca/serial.js';
import type { Portal } from '../../portal.js';
import { appendAuditEvent } from '../../modules/audit/service.js';
import { addMember } from '../../modules/people/service.js';
import { revokeMember } from '../../commands/revoke-member.js';
import type { PemIdentity } from './tls-probe.js';

/**
 * The throw-away member `tak-check` works with: `TakCheck{UTC time to the millisecond}`, active only while a run
 * lasts, every step audited with the actor `cli`.
 */
export interface TestMember {
  callsign: string;
  issued: IssuedCertificate;
}

export const TEST_MEMBER_PREFIX = 'TakCheck';

function testCallsign(at: Date): string {
  // Callsigns are letters and digits: 2026-01-24T12:30:00.123Z becomes TakCheck20260124123000123.
  // To the millisecond, so that runs a second apart (as in a test suite) get members of their own.
  return TEST_MEMBER_PREFIX + at.toISOString().replace(/\D/g, '').slice(0, 17);
}

export async function createTestMember(
  portal: Portal,
  at: Date,
  target: { host: string; port: number },
): Promise<TestMember> {
  const callsign = testCallsign(at);
  const db = portal.database.db;
  await db.transaction().execute(async (trx) => {
    const inserted = await addMember(trx, {
      callsign,
      status: 'active',
      inviteCode: null,
      roles: [],
      at: at.getTime(),
    });
    if (!inserted) throw new Error(`the test member ${callsign} exists already: try again`);
    await appendAuditEvent(trx, {
      at: at.getTime(),
      actor: 'cli',
      action: 'tak-check.member',
      target: callsign,
      outcome: 'success',
      clientAddress: null,
      detail: { takHost: target.host, takPort: target.port },
    });
  });
  try {
    const issued = await portal.certificates.issueForMember({
      callsign,
      purpose: 'tak-package',
      key: { generate: portal.config.keyAlgorithm },
      actor: { callsign: 'cli', clientAddress: null },
      audit: { action: 'tak-check.certificate' },
    });
    return { callsign, issued };
  } catch (error) {
    await retireTestMember(portal, callsign);
    throw error;
  }
}

/** Revokes the test member and every certificate they hold (audited as `member.revoke`). */
export async function retireTestMember(portal: Portal, callsign: string): Promise<void> {
  await revokeMember(portal.database.db, portal.certificates, {
    callsign,
    actor: 'cli',
    clientAddress: null,
  });
}

export function identityOf(issued: IssuedCertificate): PemIdentity {
  return {
    certificatePem: issued.certificatePem,
    privateKeyPem: issued.privateKeyPem,
    // The CAs under the root; the root is the server's to have.
    chainPem: issued.chainPem.slice(0, -1),
  };
}

/**
 * A revoked test certificate with its key, kept between runs: TAK Server reads its CRL only when
 * it starts, so a certificate revoked during a run cannot be refused in that run. It is the
 * certificate of an earlier throw-away test member, revoked when that run ended; it is replaced
 * when missing or within a month of its expiry.
 */
export interface RevokedTestKey {
  callsign: string;
  serial: string;
  revokedAt: number;
  identity: PemIdentity;
}

const KEEP_UNTIL_MS = 30 * 24 * 60 * 60 * 1000;

function revokedKeyFile(portal: Portal): string {
  return path.join(portal.config.dataDir, 'tak-check', 'revoked-test-key.pem');
}

/** The kept revoked test key, when there is one that the record shows revoked and valid a while. */
export async function loadRevokedTestKey(
  portal: Portal,
  now: Date,
): Promise<RevokedTestKey | undefined> {
  let text: string;
  try {
    text = await readFile(revokedKeyFile(portal), 'utf8');
  } catch {
    return undefined;
  }
  const certificatePem = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n?/.exec(
    text,
  )?.[0];
  const privateKeyPem = /-----BEGIN PRIVATE KEY-----[^-]+-----END PRIVATE KEY-----\n?/.exec(
    text,
  )?.[0];
  if (certificatePem === undefined || privateKeyPem === undefined) return undefined;
  const certificate = new X509Certificate(certificatePem);
  const serial = normalizeSerial(certificate.serialNumber);
  const record = await portal.certificates.lookup(serial);
  if (record === undefined || record.revokedAt === null) return undefined;
  if (new Date(certificate.validTo).getTime() - now.getTime() < KEEP_UNTIL_MS) return undefined;
  return {
    callsign: record.callsign,
    serial,
    revokedAt: record.revokedAt,
    identity: { certificatePem, privateKeyPem, chainPem: portal.ca.intermediatesPem },
  };
}

/** Keeps a revoked test certificate and its key for later runs (mode 0600 in a 0700 folder). */
export async function saveRevokedTestKey(portal: Portal, issued: IssuedCertificate): Promise<void> {
  const file = revokedKeyFile(portal);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const staged = `${file}.${process.pid}`;
  await writeFile(staged, issued.privateKeyPem + issued.certificatePem, { mode: 0o600 });
  await rename(staged, file);
}
