import { isIPv6 } from 'node:net';

/**
 * Whose failure budget a client address spends (docs/api.md): an IPv4 address as it is (also
 * when a dual-stack socket shows it as `::ffff:a.b.c.d`), an IPv6 address by its /64, the
 * smallest network one subscriber is given: one attacker's 2^64 addresses are one guesser.
 */
export function guesserOf(address: string): string {
  const plain = address.replace(/%.*$/, '');
  if (!isIPv6(plain)) return plain;
  const hextets = hextetsOf(plain);
  if (hextets.slice(0, 5).every((part) => part === 0) && hextets[5] === 0xffff) {
    const [high = 0, low = 0] = hextets.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${hextets
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit parts of a valid IPv6 address (`::` filled in, a dotted IPv4 tail split). */
function hextetsOf(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parts = (side: string) => (side === '' ? [] : side.split(':'));
  const before = parts(head);
  const after = tail === undefined ? [] : parts(tail);
  const gap = tail === undefined ? 0 : 8 - before.length - after.length;
  return [...before, ...Array<string>(gap).fill('0'), ...after].map((part) => parseInt(part, 16));
}
