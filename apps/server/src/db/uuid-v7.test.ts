import { describe, expect, it } from 'vitest';
import { uuidV7 } from './uuid-v7.js';

describe('uuidV7', () => {
  it('makes RFC 9562 version 7 ids carrying the time', () => {
    const id = uuidV7(1_767_225_600_123);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(
      1_767_225_600_123,
    );
  });

  it('sorts in the order made, also within one millisecond and when the clock steps back', () => {
    const ids = [
      ...Array.from({ length: 5000 }, () => uuidV7(1_800_000_000_000)),
      uuidV7(1_799_999_999_000),
      uuidV7(),
    ];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
