import { describe, expect, it } from 'vitest';
import { uuidV5 } from './uuid-v5.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('matches RFC 4122 name-based UUIDs (as Python uuid.uuid5 computes them)', () => {
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5('tak.example.org|Eagle7|atak', '6f0c2d1e-8a4b-4c39-9e57-2b7d1f4a9c03')).toBe(
      '75b77efb-585a-5fb3-84ca-d0753c96d573',
    );
  });

  it('sets version 5 and the RFC 4122 variant, and is deterministic per name', () => {
    const uid = uuidV5('Wolf1', DNS_NAMESPACE);
    expect(uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidV5('Wolf1', DNS_NAMESPACE)).toBe(uid);
    expect(uuidV5('Wolf2', DNS_NAMESPACE)).not.toBe(uid);
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(TypeError);
  });
});
