import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takPaths } from '@callsign/contract';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// GET tak/trust-package/unnamed (issue 31): the trust package a phone downloads by scanning its
// address off a laptop's TAK card, signed in nowhere. Nothing in it is personal or secret: the
// connection, the truststore of CA certificates, no user name and no key.

describe('GET tak/trust-package/unnamed', () => {
  let portal: InjectPortal;

  beforeAll(async () => {
    portal = await openInjectPortal({ env: { PORTAL_DEPLOYMENT: 'Field' } });
  });

  afterAll(async () => {
    await portal.destroy();
  });

  it('answers anyone on the public face the connection and the truststore, with no user name and no key', async () => {
    const response = await portal.api('public', 'GET', takPaths.unnamedTrustPackage);
    expect(response.status, response.text).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe('attachment; filename="Field_trust.zip"');
    const entries = unzipSync(new Uint8Array(response.body));
    const pref = strFromU8(entries['server.pref'] ?? new Uint8Array());
    expect(pref).toContain(
      `<entry key="connectString0" class="class java.lang.String">${portal.config.takHost}:8089:ssl</entry>`,
    );
    expect(pref).toContain(
      '<entry key="enrollForCertificateWithTrust0" class="class java.lang.Boolean">true</entry>',
    );
    // No user name: the TAK app asks for the user name and the code.
    expect(pref).toContain('<entry key="username0" class="class java.lang.String"></entry>');
    expect(pref).not.toContain('certificateLocation');
    expect(Object.keys(entries).some((name) => name.endsWith('.p12'))).toBe(true);
    for (const [name, data] of Object.entries(entries)) {
      expect(Buffer.from(data).toString('latin1'), name).not.toContain('PRIVATE KEY');
    }
  });

  it('is the member’s own trust package but for the user name', async () => {
    const member = await portal.addMember('Trust2');
    const own = await portal.api('mtls', 'GET', takPaths.trustPackage, { key: member });
    const unnamed = await portal.api('public', 'GET', takPaths.unnamedTrustPackage);
    const prefOf = (body: Buffer) =>
      strFromU8(unzipSync(new Uint8Array(body))['server.pref'] ?? new Uint8Array());
    expect(prefOf(own.body).replace('>Trust2<', '><')).toBe(prefOf(unnamed.body));
  });

  it('is built once for every caller a while, not once per anonymous request', async () => {
    const first = await portal.api('public', 'GET', takPaths.unnamedTrustPackage);
    const second = await portal.api('public', 'GET', takPaths.unnamedTrustPackage);
    // A build differs from the next (the truststore's salts are random): equal bytes are one build.
    const member = await portal.addMember('Trust3');
    const ownOnce = await portal.api('mtls', 'GET', takPaths.trustPackage, { key: member });
    const ownAgain = await portal.api('mtls', 'GET', takPaths.trustPackage, { key: member });
    expect(ownOnce.body.equals(ownAgain.body)).toBe(false);
    expect(first.body.equals(second.body)).toBe(true);
  });

  it("gives iTAK's flavour for ?client=itak, built apart from ATAK's, and refuses another client", async () => {
    const atak = await portal.api('public', 'GET', takPaths.unnamedTrustPackage);
    const itak = await portal.api('public', 'GET', `${takPaths.unnamedTrustPackage}?client=itak`);
    expect(itak.status, itak.text).toBe(200);
    expect(itak.headers['content-disposition']).toBe('attachment; filename="Field_trust_itak.zip"');
    const entries = unzipSync(new Uint8Array(itak.body));
    // iTAK reads the unsuffixed keys and, in older versions, a root config.pref.
    const pref = strFromU8(entries['server.pref'] ?? new Uint8Array());
    expect(pref).toContain('<entry key="caLocation" ');
    expect(pref).toContain('<entry key="caPassword" ');
    expect(entries['config.pref']).toBeDefined();
    const atakPref = strFromU8(
      unzipSync(new Uint8Array(atak.body))['server.pref'] ?? new Uint8Array(),
    );
    expect(atakPref).not.toContain('<entry key="caLocation" ');
    // Each flavour is one build a while: asked again, the same bytes.
    const itakAgain = await portal.api(
      'public',
      'GET',
      `${takPaths.unnamedTrustPackage}?client=itak`,
    );
    expect(itakAgain.body.equals(itak.body)).toBe(true);
    const other = await portal.api(
      'public',
      'GET',
      `${takPaths.unnamedTrustPackage}?client=wintak`,
    );
    expect(other.status).toBe(422);
  });

  it('on the mTLS face wants a key, as every call there but the health check', async () => {
    const response = await portal.api('mtls', 'GET', takPaths.unnamedTrustPackage);
    expect(response.status).toBe(403);
  });
});

describe('GET tak/trust-package/unnamed with TAK enrollment off', () => {
  let portal: InjectPortal;

  beforeAll(async () => {
    portal = await openInjectPortal({ env: { PORTAL_TAK_ENROLL_PORT: 'off' } });
  });

  afterAll(async () => {
    await portal.destroy();
  });

  it('is not there', async () => {
    const response = await portal.api('public', 'GET', takPaths.unnamedTrustPackage);
    expect(response.status).toBe(404);
  });
});
