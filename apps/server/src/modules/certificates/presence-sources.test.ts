import { describe, expect, it } from 'vitest';
import { PresenceSources } from './presence-sources.js';

// Whose OCSP requests count as presence (docs/operations.md#tak-readiness).

const DAY = 86_400_000;

describe('PresenceSources', () => {
  it('with PORTAL_TAK_SERVER_ADDRESSES, counts its addresses and ranges only, a CRL fetch or not', () => {
    const sources = new PresenceSources({
      takServers: ['10.0.0.5', '192.0.2.0/28', '2001:db8::/64'],
    });
    sources.crlFetched('203.0.113.9', 0);
    expect(sources.counts('10.0.0.5', 0)).toBe(true);
    expect(sources.counts('::ffff:10.0.0.5', 0)).toBe(true);
    expect(sources.counts('192.0.2.15', 0)).toBe(true);
    expect(sources.counts('192.0.2.16', 0)).toBe(false);
    expect(sources.counts('2001:db8::1234', 0)).toBe(true);
    expect(sources.counts('203.0.113.9', 0)).toBe(false);
    expect(sources.counts(null, 0)).toBe(false);
    expect(sources.needsDatabase('203.0.113.9', 0)).toBe(false);
  });

  it('without it, counts an address that fetched the CRL within its validity, here or in the database', () => {
    const sources = new PresenceSources({ crlFetcherMs: 7 * DAY });
    expect(sources.counts('10.0.0.6', 0)).toBe(false);
    expect(sources.needsDatabase('10.0.0.6', 0)).toBe(true);
    sources.crlFetched('::ffff:10.0.0.6', 0);
    expect(sources.needsDatabase('10.0.0.6', DAY)).toBe(false);
    expect(sources.counts('10.0.0.6', 7 * DAY)).toBe(true);
    expect(sources.counts('10.0.0.6', 7 * DAY + 1)).toBe(false);
    const lastCrl = { at: DAY, address: '10.0.0.8' };
    expect(sources.counts('10.0.0.8', 2 * DAY, lastCrl)).toBe(true);
    expect(sources.counts('10.0.0.8', 8 * DAY + 1, lastCrl)).toBe(false);
    expect(sources.counts('10.0.0.9', 2 * DAY, lastCrl)).toBe(false);
  });

  it('remembers at most 1,000 fetchers, forgetting the longest unseen first', () => {
    const sources = new PresenceSources();
    sources.crlFetched('10.0.0.1', 0);
    sources.crlFetched('10.0.0.2', 0);
    sources.crlFetched('10.0.0.1', 1);
    for (let i = 0; i < 999; i++) sources.crlFetched(`10.1.${i >> 8}.${i & 255}`, 2);
    expect(sources.counts('10.0.0.1', 3)).toBe(true);
    expect(sources.counts('10.0.0.2', 3)).toBe(false);
  });
});
