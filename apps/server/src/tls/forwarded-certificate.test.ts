import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, type IssuedCertificate } from '../ca/authority.js';
import { loadTestCa } from '../ca/test-ca.testing.js';
import { makeTempDir, removeTempDir, selfSignedCertificate } from '../ca/openssl-cli.testing.js';
import type { RecordedCertificate } from './client-certificate.js';
import {
  proxySecretCheck,
  trustedProxyMatcher,
  verifyForwardedCertificate,
  type ForwardedCertificateOptions,
} from './forwarded-certificate.js';

describe('trustedProxyMatcher', () => {
  it('matches addresses and ranges of PORTAL_TRUSTED_PROXIES, IPv4 also as mapped IPv6', () => {
    const trusted = trustedProxyMatcher(['10.0.0.5', '192.168.1.0/24', '::1', 'fd00::/8']);
    for (const address of ['10.0.0.5', '::ffff:10.0.0.5', '192.168.1.77', '::1', 'fd12::3']) {
      expect(trusted(address), address).toBe(true);
    }
    for (const address of ['10.0.0.6', '192.168.2.1', '127.0.0.1', '::2', 'fe80::1', '']) {
      expect(trusted(address), address).toBe(false);
    }
  });

  it('trusts nobody when the list is empty', () => {
    expect(trustedProxyMatcher([])('127.0.0.1')).toBe(false);
  });
});

describe('verifyForwardedCertificate', () => {
  let dir: string;
  let ca: CertificateAuthority;
  let member: IssuedCertificate;
  let server: IssuedCertificate;
  const record = new Map<string, RecordedCertificate>();
  let options: ForwardedCertificateOptions;

  const headers = (pem: string, verify: string | undefined = 'SUCCESS', from = '10.0.0.5') => ({
    remoteAddress: from,
    cert: encodeURIComponent(pem),
    verify,
  });

  beforeAll(async () => {
    dir = await makeTempDir();
    ca = await loadTestCa({
      dir: path.join(dir, 'ca'),
      publicBaseUrl: 'https://portal.example.org',
    });
    member = await ca.issueMemberCertificate({ callsign: 'Ranger1', validityDays: 30 });
    server = await ca.issueServerCertificate({ dnsNames: ['tak.example.org'] });
    record.set(member.serial, { callsign: 'Ranger1', revokedAt: null });
    record.set(server.serial, { callsign: 'tak.example.org', revokedAt: null });
    options = {
      isTrustedProxy: trustedProxyMatcher(['10.0.0.5']),
      issuingCa: new X509Certificate(ca.issuingCertificatePem),
      lookup: (serial) => Promise.resolve(record.get(serial)),
    };
  });

  afterAll(() => removeTempDir(dir));

  it('verifies a member certificate the trusted proxy forwards with SUCCESS', async () => {
    expect(await verifyForwardedCertificate(headers(member.certificatePem), options)).toEqual({
      status: 'verified',
      callsign: 'Ranger1',
      serial: member.serial,
      notAfter: new Date(new X509Certificate(member.certificatePem).validTo),
      madeBy: null,
    });
  });

  it('with PORTAL_PROXY_SECRET_FILE, believes the headers only beside the proxy’s secret', async () => {
    const secret = 'c2VjcmV0IG9mIHRoZSBwcm94eSwgMzIgYnl0ZXMgb3IgbW9yZQ';
    const guarded = { ...options, proxySecret: proxySecretCheck(secret) };
    const from = (proxySecret: string | string[] | undefined) => ({
      ...headers(member.certificatePem),
      proxySecret,
    });
    // A local process that connects from the proxy's address but does not know the secret.
    for (const forged of [
      undefined,
      '',
      'wrong',
      secret.slice(0, -1),
      `${secret}x`,
      [secret, secret],
    ]) {
      expect(await verifyForwardedCertificate(from(forged), guarded)).toEqual({ status: 'absent' });
    }
    expect(await verifyForwardedCertificate(from(secret), guarded)).toMatchObject({
      status: 'verified',
      callsign: 'Ranger1',
    });
    // From another address the secret alone is not enough either.
    const elsewhere = { ...from(secret), remoteAddress: '10.0.0.6' };
    expect(await verifyForwardedCertificate(elsewhere, guarded)).toEqual({ status: 'absent' });
  });

  it('ignores the headers from any other address, or without the verdict SUCCESS', async () => {
    const pem = member.certificatePem;
    const absent = { status: 'absent' };
    expect(await verifyForwardedCertificate(headers(pem, 'SUCCESS', '10.0.0.6'), options)).toEqual(
      absent,
    );
    const withoutVerdict = { ...headers(pem), verify: undefined };
    expect(await verifyForwardedCertificate(withoutVerdict, options)).toEqual(absent);
    expect(await verifyForwardedCertificate(headers(pem, 'NONE'), options)).toEqual(absent);
    expect(await verifyForwardedCertificate(headers(pem, 'FAILED:expired'), options)).toMatchObject(
      { status: 'rejected' },
    );
  });

  it('checks the chain itself: a look-alike from another CA with a recorded serial is refused', async () => {
    const file = await selfSignedCertificate(dir, 'look-alike', {
      subject: '/CN=Ranger1',
      serial: `0x${member.serial}`,
    });
    const pem = await readFile(file, 'utf8');
    expect(await verifyForwardedCertificate(headers(pem), options)).toEqual({
      status: 'rejected',
      reason: 'not signed by the portal CA',
    });
  });

  it('refuses a server certificate, garbage, and a revoked certificate', async () => {
    expect(await verifyForwardedCertificate(headers(server.certificatePem), options)).toEqual({
      status: 'rejected',
      reason: 'not a client certificate',
    });
    expect(await verifyForwardedCertificate(headers('not a certificate'), options)).toMatchObject({
      status: 'rejected',
    });
    record.set(member.serial, { callsign: 'Ranger1', revokedAt: Date.now() });
    expect(await verifyForwardedCertificate(headers(member.certificatePem), options)).toEqual({
      status: 'rejected',
      reason: 'revoked',
    });
  });
});
