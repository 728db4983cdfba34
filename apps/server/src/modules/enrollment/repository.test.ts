import { ENROLLMENT_STATE } from '@callsign/contract';
import { expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { hashCode } from '../auth/codes.js';
import { insertMember } from '../people/repository.js';
import {
  decideEnrollment,
  enrollmentListFingerprint,
  findEnrollment,
  insertEnrollment,
  listEnrollments,
} from './repository.js';

const T = 1_767_225_600_000;

describeWithMigratedDatabase('enrollment repository', (database) => {
  async function pending(callsign: string, createdAt: number) {
    const { db } = database.handle;
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
      createdAt,
    });
  }

  it('finds an enrollment by callsign in any case, and nothing for a member without one', async () => {
    const { db } = database.handle;
    await db.insertInto('invite_codes').values({ code: 'INVITE22', created_at: T }).execute();
    await pending('Kilo1', T);
    await insertMember(db, {
      callsign: 'Admin1',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: T,
    });

    expect(await findEnrollment(db, 'KILO1')).toEqual({
      callsign: 'Kilo1',
      inviteCode: 'INVITE22',
      approvalCodeHash: hashCode('APPR2345'),
      state: ENROLLMENT_STATE.pending,
      createdAt: T,
      decidedAt: null,
      decidedBy: null,
      lockReason: null,
    });
    expect(await findEnrollment(db, 'Admin1')).toBeUndefined();
    expect(await findEnrollment(db, 'Nobody1')).toBeUndefined();
  });

  it('lists every enrollment oldest first', async () => {
    await pending('Zulu1', T - 2000);
    await pending('Alpha1', T + 1000);
    const callsigns = (await listEnrollments(database.handle.db)).map((e) => e.callsign);
    expect(callsigns).toEqual(['Zulu1', 'Kilo1', 'Alpha1']);
  });

  it('has a list fingerprint that moves when an enrollment is added or decided, and only then', async () => {
    const { db } = database.handle;
    const first = await enrollmentListFingerprint(db);
    expect(await enrollmentListFingerprint(db)).toBe(first);
    await listEnrollments(db);
    expect(await enrollmentListFingerprint(db)).toBe(first);

    await pending('Print1', T + 5000);
    const added = await enrollmentListFingerprint(db);
    expect(added).not.toBe(first);

    expect(await decideEnrollment(db, 'Print1', { state: 1, at: T, by: 'Admin1' })).toBe(true);
    const decided = await enrollmentListFingerprint(db);
    expect(decided).not.toBe(added);
    expect(decided).not.toBe(first);
  });

  it('gives one winner to 10 parallel decisions on one enrollment', async () => {
    const { db } = database.handle;
    await pending('Race1', T);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction().execute((trx) =>
          decideEnrollment(trx, 'Race1', {
            state: i % 2 === 0 ? ENROLLMENT_STATE.approved : ENROLLMENT_STATE.rejected,
            at: T + i,
            by: `Admin${i}`,
            lockReason: 'locked',
          }),
        ),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const decided = await findEnrollment(db, 'Race1');
    expect(decided?.decidedAt).not.toBeNull();
    expect(decided?.state).not.toBe(ENROLLMENT_STATE.pending);
    expect(
      await decideEnrollment(db, 'Race1', { state: ENROLLMENT_STATE.approved, at: T, by: 'Late1' }),
    ).toBe(false);
  });
});
