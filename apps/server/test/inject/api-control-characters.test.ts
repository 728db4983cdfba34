import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { snapshotTables } from '../support/table-snapshot.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// Text people type (a filter, a reason, a label) never holds a control character: no keyboard
// sends one, and PostgreSQL refuses to store or compare a NUL (it answered 500 before). Nor a
// bidi control, an invisible character or a line separator, which would make what admins read
// differ from what was stored (issue 25, finding 7; the rule: TYPED_LINE in the contract). Each is
// a 422 that names the field, as every validation error, and changes nothing; line breaks stay
// allowed in a reason.

describe.each(testEngines())('control characters in typed text on $name', (engine) => {
  let portal: InjectPortal;
  let admin: MemberKey;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env });
    admin = await portal.addMember('Boss1', { roles: ['admin'] });
    return portal;
  });

  async function expectRefused(
    method: string,
    path: string,
    field: string,
    json?: unknown,
  ): Promise<void> {
    const before = await snapshotTables(portal.portal.database.db);
    const answer = await portal.api('mtls', method, path, {
      key: admin,
      ...(json === undefined ? {} : { json }),
    });
    expect(answer.status, answer.text).toBe(422);
    expect(answer.json()).toMatchObject({
      detail: [{ loc: [expect.any(String), field], msg: 'no control characters' }],
    });
    expect(await snapshotTables(portal.portal.database.db)).toBe(before);
  }

  it.each(['actor', 'action', 'target'])(
    'refuses control and bidi characters in the audit filter %s',
    async (field) => {
      for (const path of [apiPaths.audit, apiPaths.auditCsv]) {
        await expectRefused('GET', `${path}?${field}=Boss%001`, field);
      }
      await expectRefused('GET', `${apiPaths.audit}?${field}=%1b%5b2J`, field);
      // C1 (NEL), a bidi override, a zero-width space, a line separator.
      for (const encoded of ['%C2%85', '%E2%80%AE', '%E2%80%8B', '%E2%80%A8']) {
        await expectRefused('GET', `${apiPaths.auditCsv}?${field}=Boss${encoded}1`, field);
      }
    },
  );

  it('refuses control and bidi characters in a rejection’s reason, and keeps its line breaks', async () => {
    await portal.addPendingEnrollee('Late1', 'LATECODE');
    const lock = (reason: string) => ({ callsign: 'Late1', lock_reason: reason });
    await expectRefused('POST', apiPaths.lock, 'lock_reason', lock('no\u0000thanks'));
    for (const character of ['\u0085', '\u202e', '\u2066', '\u200f', '\u2029', '\ufeff']) {
      await expectRefused('POST', apiPaths.lock, 'lock_reason', lock(`no${character}thanks`));
    }
    const locked = await portal.api('mtls', 'POST', apiPaths.lock, {
      key: admin,
      json: lock('Not on the list.\r\nAsk your team lead.\t(ops)'),
    });
    expect(locked.status, locked.text).toBe(200);
  });

  it('refuses control, bidi and invisible characters in an invite code’s label', async () => {
    await expectRefused('POST', apiPaths.createInvite, 'label', { label: 'Team\u0000A' });
    await expectRefused('POST', apiPaths.createInvite, 'label', { label: 'Team\nA' });
    // Shown to admins as "Team Aexe.gnp": the override turns the rest around on screen.
    await expectRefused('POST', apiPaths.createInvite, 'label', { label: 'Team A\u202epng.exe' });
    for (const character of ['\u009b', '\u061c', '\u200b', '\u200d', '\u2060', '\u2028']) {
      await expectRefused('POST', apiPaths.createInvite, 'label', { label: `Team${character}A` });
    }
  });

  it('names a bulk callsign with a NUL as invalid, as any other', async () => {
    const checked = await portal.api('mtls', 'POST', apiPaths.bulkCheck, {
      key: admin,
      json: { callsigns: ['Good1', 'Bad\u00001'] },
    });
    expect(checked.status, checked.text).toBe(200);
    expect(checked.json()).toMatchObject({
      callsigns: [
        { callsign: 'Good1', problem: null },
        { callsign: 'Bad\u00001', problem: 'invalid' },
      ],
    });
  });
});
