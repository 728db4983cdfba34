import { expect, it } from 'vitest';
import { describeWithMigratedDatabase } from '../../db/engine-suite.testing.js';
import { appendAuditEvent } from './repository.js';
import { listRecentAuditEvents } from './recent-events.testing.js';

const T = 1_767_225_600_000;

describeWithMigratedDatabase('audit repository', (database) => {
  it('appends events and lists the latest first, detail round-tripping as JSON', async () => {
    const first = await appendAuditEvent(database.handle.db, {
      at: T,
      actor: null,
      action: 'sign-in',
      target: null,
      outcome: 'failure',
      clientAddress: '192.0.2.7',
    });
    const ids = [first];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        await appendAuditEvent(database.handle.db, {
          at: T + 10,
          actor: 'Alpha',
          action: 'people.revoke',
          target: `Target${i}`,
          outcome: 'success',
          clientAddress: '2001:db8::1',
          detail: { serials: ['0a', '0b'], index: i },
        }),
      );
    }

    const recent = await listRecentAuditEvents(database.handle.db, 3);

    expect(recent.map((event) => event.id)).toEqual(ids.slice(-3).reverse());
    expect(recent[0]).toEqual({
      id: ids[5],
      at: T + 10,
      actor: 'Alpha',
      action: 'people.revoke',
      target: 'Target4',
      outcome: 'success',
      clientAddress: '2001:db8::1',
      detail: { serials: ['0a', '0b'], index: 4 },
    });
    const all = await listRecentAuditEvents(database.handle.db);
    expect(all.at(-1)).toMatchObject({ id: first, actor: null, detail: null, outcome: 'failure' });
  });
});
