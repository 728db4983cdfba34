import { describe, expect, it } from 'vitest';
import {
  apiPaths,
  createInviteResponseSchema,
  inviteToggleResponseSchema,
  poolsResponseSchema,
} from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import { listRecentAuditEvents } from '../../src/modules/audit/recent-events.testing.js';
import type { ApiRequestOptions } from '../support/api-client.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';

// An auto-approving invite approves in its owner's name (issue 25 finding 9). Revoking or demoting
// an admin deactivates their codes; an admin who activates one again takes it over, so it never
// approves in the name of someone who lost the power to approve.

type PresentedKey = NonNullable<ApiRequestOptions['key']>;

describe.each(testEngines())('who an invite approves for on $name', (engine) => {
  let portal: InjectPortal;

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({ env });
    return portal;
  });

  const db = () => portal.portal.database.db;
  const asAdmin = (admin: PresentedKey, method: string, urlPath: string, json?: unknown) =>
    portal.api('mtls', method, urlPath, { key: admin, json });

  async function autoApprovingInvite(owner: PresentedKey): Promise<string> {
    const made = await asAdmin(owner, 'POST', apiPaths.createInvite, { auto_approve: true });
    expect(made.status, made.text).toBe(200);
    return createInviteResponseSchema.parse(made.json()).invite_code;
  }

  async function activate(admin: PresentedKey, code: string) {
    const answer = await asAdmin(admin, 'PUT', apiPaths.activateInvite, { invite_code: code });
    expect(answer.status, answer.text).toBe(200);
    return inviteToggleResponseSchema.strict().parse(answer.json());
  }

  async function ownerOf(admin: PresentedKey, code: string) {
    const pools = poolsResponseSchema.parse((await asAdmin(admin, 'GET', apiPaths.pools)).json());
    return pools.pools.find((invite) => invite.invitecode === code)?.owner_cs;
  }

  it('a revoked admin’s code, activated again by another admin, is theirs: it approves in their name, audited', async () => {
    const lima = await portal.addMember('Lima1', { roles: ['admin'] });
    const kilo = await portal.addMember('Kilo1', { roles: ['admin'] });
    const code = await autoApprovingInvite(lima);
    const revoked = await asAdmin(kilo, 'DELETE', apiPaths.person('Lima1'));
    expect(revoked.status, revoked.text).toBe(200);

    expect(await activate(kilo, code)).toEqual({ success: true, owner_transferred_from: 'Lima1' });
    expect(await ownerOf(kilo, code)).toBe('Kilo1');
    const [activated] = await listRecentAuditEvents(db(), 1);
    expect(activated).toMatchObject({
      actor: 'Kilo1',
      action: 'invite.activate',
      target: code,
      detail: { owner_transferred_from: 'Lima1' },
    });

    const enrolled = await portal.api('public', 'POST', apiPaths.enroll, {
      json: { callsign: 'Mike1', invite_code: code },
    });
    expect(enrolled.status, enrolled.text).toBe(200);
    const [accepted] = await listRecentAuditEvents(db(), 1);
    expect(accepted).toMatchObject({
      actor: 'Kilo1',
      action: 'enrollment.accept',
      target: 'Mike1',
    });
  });

  it('a code whose owner is still an admin keeps its owner when another admin activates it', async () => {
    const november = await portal.addMember('November1', { roles: ['admin'] });
    const oscar = await portal.addMember('Oscar1', { roles: ['admin'] });
    const code = await autoApprovingInvite(november);
    const off = await asAdmin(oscar, 'PUT', apiPaths.deactivateInvite, { invite_code: code });
    expect(off.status, off.text).toBe(200);

    expect(await activate(oscar, code)).toEqual({ success: true });
    expect(await ownerOf(oscar, code)).toBe('November1');
  });

  it('a demoted admin’s code is taken over too', async () => {
    const papa = await portal.addMember('Papa1', { roles: ['admin'] });
    const quebec = await portal.addMember('Quebec1', { roles: ['admin'] });
    const code = await autoApprovingInvite(papa);
    const demoted = await asAdmin(quebec, 'POST', apiPaths.demote, { callsign: 'Papa1' });
    expect(demoted.status, demoted.text).toBe(200);

    expect(await activate(quebec, code)).toEqual({
      success: true,
      owner_transferred_from: 'Papa1',
    });
    expect(await ownerOf(quebec, code)).toBe('Quebec1');
  });
});
