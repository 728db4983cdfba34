import { beforeAll, expect, it } from 'vitest';
import { ENROLLMENT_STATE, type TokenScope } from '@callsign/contract';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { hashCode } from '../auth/codes.js';
import type { TokenClaims } from '../auth/token-service.js';
import { insertMember } from '../people/repository.js';
import { decideEnrollment, insertEnrollment } from './repository.js';
import { enrollmentTokenPolicy } from './token-policy.js';

const T = 1_767_225_600_000;
const DAY = 24 * 60 * 60 * 1000;
const GRACE = 7 * DAY;

function claims(scope: TokenScope, sub?: string): TokenClaims {
  return { scope, jti: 'jti', iat: 0, exp: 0, ...(sub === undefined ? {} : { sub }) };
}

describeWithMigratedDatabase('enrollment token policy', (database) => {
  const counts = (at: number, token: TokenClaims) =>
    enrollmentTokenPolicy(database.handle.db, GRACE, () => new Date(at))(token);

  beforeAll(async () => {
    const { db } = database.handle;
    await db.insertInto('invite_codes').values({ code: 'INVITE22', created_at: T }).execute();
    for (const callsign of ['Waiting1', 'Approved1', 'Rejected1']) {
      await insertMember(db, {
        callsign,
        status: 'pending',
        inviteCode: 'INVITE22',
        roles: [],
        at: T,
      });
      await insertEnrollment(db, {
        callsign,
        inviteCode: 'INVITE22',
        approvalCodeHash: hashCode('APPR2345'),
        createdAt: T,
      });
    }
    await decideEnrollment(db, 'Approved1', {
      state: ENROLLMENT_STATE.approved,
      at: T,
      by: 'Boss1',
    });
    await decideEnrollment(db, 'Rejected1', {
      state: ENROLLMENT_STATE.rejected,
      at: T,
      by: 'Boss1',
      lockReason: 'no',
    });
  });

  it('lets the token of a pending enrollment count, however long it waits', async () => {
    expect(await counts(T + 365 * DAY, claims('enrollment', 'Waiting1'))).toBe(true);
  });

  it.each(['Approved1', 'Rejected1'])(
    'lets the token of %s count until the grace after the decision is over, not after',
    async (callsign) => {
      const token = claims('enrollment', callsign);
      expect(await counts(T, token)).toBe(true);
      expect(await counts(T + GRACE - 1, token)).toBe(true);
      expect(await counts(T + GRACE, token)).toBe(false);
      expect(await counts(T + 30 * DAY, token)).toBe(false);
    },
  );

  it('stops an enrollment token at once when there is no enrollment, or no callsign', async () => {
    expect(await counts(T, claims('enrollment', 'Nobody1'))).toBe(false);
    expect(await counts(T, claims('enrollment'))).toBe(false);
    await database.handle.db.deleteFrom('enrollments').where('callsign', '=', 'Waiting1').execute();
    expect(await counts(T, claims('enrollment', 'Waiting1'))).toBe(false);
  });

  it('leaves tokens of other scopes alone', async () => {
    expect(await counts(T + GRACE, claims('member', 'Approved1'))).toBe(true);
    expect(await counts(T, claims('member', 'Nobody1'))).toBe(true);
    expect(await counts(T, claims('first-admin'))).toBe(true);
  });
});
