import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { insertMember } from '../people/repository.js';
import { PRESENCE_WRITE_INTERVAL_MS, TakPresence } from './presence.js';
import { findCertificateBySerial, recordIssuedCertificate } from './repository.js';

/** The addresses asking below are a configured TAK Server's (presence-sources.ts). */
const TAK_SERVERS = { takServers: ['10.0.0.0/24'] };

/** Counts the statements that write (INSERT, UPDATE) sent to the database. */
class WriteCounter implements KyselyPlugin {
  writes = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const { kind } = args.node;
    if (kind === 'UpdateQueryNode' || kind === 'InsertQueryNode') this.writes++;
    return args.node;
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

describeWithMigratedDatabase('TAK presence', (database) => {
  const serial = '0a1b2c';
  const t0 = Date.parse('2026-11-25T12:00:00Z');

  beforeAll(async () => {
    const { db } = database.handle;
    await insertMember(db, {
      callsign: 'Kite5',
      status: 'active',
      inviteCode: null,
      roles: [],
      at: t0,
    });
    await recordIssuedCertificate(db, {
      serial,
      callsign: 'Kite5',
      purpose: 'browser',
      notBefore: t0,
      notAfter: t0 + 86_400_000,
      issuedAt: t0,
    });
  });

  it('writes a flood of 1,000 OCSP requests about one key once a minute, never before the flush', async () => {
    let clock = t0;
    const counter = new WriteCounter();
    const db = database.handle.db.withPlugin(counter);
    const one = new TakPresence(db, () => new Date(clock), undefined, TAK_SERVERS);
    for (let i = 0; i < 1000; i++) {
      one.ocspAsked([serial], '10.0.0.5');
      clock += 10; // 10 seconds in all
    }
    // Queued only: the answer path wrote nothing.
    expect(counter.writes).toBe(0);
    await one.flush();
    // The OCSP request's row, the key, the member: one statement each.
    expect(counter.writes).toBe(3);
    const key = await findCertificateBySerial(database.handle.db, serial);
    expect(key).toMatchObject({ lastCheckedAt: t0, lastCheckedFrom: '10.0.0.5' });
    const member = await database.handle.db
      .selectFrom('members')
      .select('last_seen_tak_at')
      .where('callsign', '=', 'Kite5')
      .executeTakeFirstOrThrow();
    expect(member.last_seen_tak_at).toBe(t0);

    // Another instance, its own throttle empty: the SQL guard writes no row within the minute.
    const other = new TakPresence(
      database.handle.db,
      () => new Date(clock),
      undefined,
      TAK_SERVERS,
    );
    for (let i = 0; i < 1000; i++) other.ocspAsked([serial], '10.0.0.6');
    await other.flush();
    expect(other.rowsWritten).toBe(0);
    expect(await findCertificateBySerial(database.handle.db, serial)).toMatchObject({
      lastCheckedFrom: '10.0.0.5',
    });

    // A minute on: written again, once.
    clock = t0 + PRESENCE_WRITE_INTERVAL_MS + 1;
    for (let i = 0; i < 1000; i++) one.ocspAsked([serial], '10.0.0.7');
    await one.flush();
    expect(counter.writes).toBe(6);
    expect(one.rowsWritten).toBe(6);
    expect(await findCertificateBySerial(database.handle.db, serial)).toMatchObject({
      lastCheckedAt: clock,
      lastCheckedFrom: '10.0.0.7',
    });
  });

  it('records the last CRL fetch and its address, once a minute', async () => {
    let clock = t0 + 10 * PRESENCE_WRITE_INTERVAL_MS;
    const presence = new TakPresence(database.handle.db, () => new Date(clock));
    presence.crlFetched('192.0.2.1');
    presence.crlFetched('192.0.2.2');
    await presence.flush();
    expect((await presence.lastFetches()).crl).toEqual({ at: clock, address: '192.0.2.1' });
    clock += PRESENCE_WRITE_INTERVAL_MS;
    presence.crlFetched('192.0.2.2');
    await presence.flush();
    expect((await presence.lastFetches()).crl?.address).toBe('192.0.2.1');
    clock += 1;
    presence.crlFetched('192.0.2.2');
    await presence.flush();
    expect((await presence.lastFetches()).crl).toEqual({ at: clock, address: '192.0.2.2' });
  });
});
