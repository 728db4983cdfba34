import { describe, expect, it } from 'vitest';
import { trustedProxyMatcher } from './forwarded-certificate.js';

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
