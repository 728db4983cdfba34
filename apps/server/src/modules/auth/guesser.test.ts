import { describe, expect, it } from 'vitest';
import { guesserOf } from './guesser.js';

describe('guesserOf (docs/api.md)', () => {
  it('keeps an IPv4 address, also one a dual-stack socket shows as IPv6', () => {
    expect(guesserOf('192.0.2.7')).toBe('192.0.2.7');
    expect(guesserOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(guesserOf('::FFFF:c000:207')).toBe('192.0.2.7');
  });

  it('groups IPv6 addresses by their /64, however they are written', () => {
    const group = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:9',
      'fe80::1%eth0'.replace('fe80::', '2001:db8:1:2::'),
    ]) {
      expect(guesserOf(address), address).toBe(group);
    }
    expect(guesserOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(guesserOf('::1')).toBe('0:0:0:0::/64');
    expect(guesserOf('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});
