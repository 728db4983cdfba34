import { describe, expect, it } from 'vitest';
import { revokeMember } from '../../src/commands/revoke-member.js';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { mtlsFailReason } from '../../src/http/mtls-gate.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { forwardedBy, openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

/**
 * A page asked on the mTLS face without a working key is sent to the public face's error page
 * with the spec's `code=mtls_fail` and a `reason` (docs/api.md): the web app tells "no key on
 * this device" from "your key was revoked" and "your key has expired" by it.
 */
describe.each(testEngines())('the mTLS face sends pages away with a reason on $name', (engine) => {
  let portal: InjectPortal;
  portalOnScratchDatabase(engine, async (env) => (portal = await openInjectPortal({ env })));

  const errorPage = (reason: string) =>
    `${portal.origin('public')}/error?code=mtls_fail&reason=${reason}`;

  it('no key at all: no_key', async () => {
    const page = await portal.api('mtls', 'GET', '/app/admin/');
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe(errorPage('no_key'));
  });

  it('a revoked member’s key: revoked; the same member’s key before that is let in', async () => {
    const key = await portal.addMember('Gone1');
    const before = await portal.api('mtls', 'GET', '/app/users/Gone1', { key });
    expect(before.status).not.toBe(302);
    await revokeMember(portal.portal.database.db, portal.portal.certificates, {
      callsign: 'Gone1',
      actor: 'test',
      clientAddress: null,
    });
    const page = await portal.api('mtls', 'GET', '/app/users/Gone1', { key });
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe(errorPage('revoked'));
  });

  it('a key the proxy found expired: expired; one it could not verify: refused', async () => {
    const key = await portal.addMember('Late1');
    const ask = (verdict: string) =>
      portal.api('mtls', 'GET', '/', {
        headers: forwardedBy(key.certificatePem, verdict),
      });
    expect((await ask('FAILED:certificate has expired')).headers.location).toBe(
      errorPage('expired'),
    );
    expect((await ask('FAILED:unable to get local issuer certificate')).headers.location).toBe(
      errorPage('refused'),
    );
  });
});

describe('mtlsFailReason', () => {
  it('reads OpenSSL’s codes of the built-in face and the record check’s words', () => {
    expect(mtlsFailReason({ status: 'absent' })).toBe('no_key');
    expect(mtlsFailReason({ status: 'rejected', reason: 'revoked' })).toBe('revoked');
    expect(mtlsFailReason({ status: 'rejected', reason: 'CERT_REVOKED' })).toBe('revoked');
    expect(mtlsFailReason({ status: 'rejected', reason: 'expired' })).toBe('expired');
    expect(mtlsFailReason({ status: 'rejected', reason: 'CERT_HAS_EXPIRED' })).toBe('expired');
    expect(mtlsFailReason({ status: 'rejected', reason: 'not issued by this portal' })).toBe(
      'refused',
    );
    expect(mtlsFailReason({ status: 'rejected', reason: 'SELF_SIGNED_CERT_IN_CHAIN' })).toBe(
      'refused',
    );
  });
});
