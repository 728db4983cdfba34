import { describe, expect, it } from 'vitest';
import { describeWithMigratedDatabase } from './engine-suite.testing.js';
import { isUniqueViolation } from './errors.js';

const T = 1_767_225_600_000;

function member(callsign: string) {
  return { callsign, status: 'active', invite_code: null, created_at: T, updated_at: T } as const;
}

describeWithMigratedDatabase('callsign uniqueness', (database) => {
  it('the index on lower(callsign) rejects Alpha after alpha, as a unique violation', async () => {
    await database.handle.db.insertInto('members').values(member('alpha')).execute();

    const error: unknown = await database.handle.db
      .insertInto('members')
      .values(member('Alpha'))
      .execute()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it('a revoked callsign stays taken', async () => {
    await database.handle.db
      .insertInto('members')
      .values({ ...member('Bravo'), status: 'revoked', revoked_at: T })
      .execute();

    const error: unknown = await database.handle.db
      .insertInto('members')
      .values(member('BRAVO'))
      .execute()
      .catch((e: unknown) => e);

    expect(isUniqueViolation(error)).toBe(true);
  });

  it('isUniqueViolation also recognises a primary-key clash', async () => {
    const row = { jti: 'jti-1', used_at: T, expires_at: T + 1 };
    await database.handle.db.insertInto('used_tokens').values(row).execute();

    const error: unknown = await database.handle.db
      .insertInto('used_tokens')
      .values(row)
      .execute()
      .catch((e: unknown) => e);

    expect(isUniqueViolation(error)).toBe(true);
  });

  it('isUniqueViolation is false for other constraint failures', async () => {
    const error: unknown = await database.handle.db
      .insertInto('member_roles')
      .values({ callsign: 'nobody', role: 'admin' })
      .execute()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect(isUniqueViolation(error)).toBe(false);
  });
});

describe('isUniqueViolation', () => {
  it.each([undefined, null, 'SQLITE_CONSTRAINT_UNIQUE', new Error('x'), { code: 23505 }])(
    'is false for %s',
    (value) => {
      expect(isUniqueViolation(value)).toBe(false);
    },
  );
});
