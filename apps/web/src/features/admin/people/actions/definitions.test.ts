import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../lib/api-client';
import { createTestI18n } from '../../../../test/i18n';
import {
  demote,
  promote,
  refusalText,
  renewalCode,
  revoke,
  takCode,
  type ActionTarget,
} from './definitions';

const en = createTestI18n('en').t;
const fi = createTestI18n('fi').t;

function target(
  admin: boolean,
  {
    self = false,
    state = 'active',
  }: { self?: boolean; state?: ActionTarget['member']['state'] } = {},
): ActionTarget {
  return { member: { callsign: 'Ranger1', admin, state }, self };
}

const MEMBER = target(false);
const ADMIN = target(true);
const YOU = target(true, { self: true });

/** What an action shows as for a target: hidden, off with its reason, or on. */
function shown(action: typeof takCode, on: ActionTarget) {
  if (!action.offered(on)) return 'hidden';
  return action.refusal(on) ?? 'on';
}

describe('the member actions: when each is offered and why it is off', () => {
  it('promote is for members only; demote for admins, never on yourself', () => {
    expect([MEMBER, ADMIN, YOU].map((on) => shown(promote, on))).toEqual([
      'on',
      'hidden',
      'hidden',
    ]);
    expect([MEMBER, ADMIN, YOU].map((on) => shown(demote, on))).toEqual([
      'hidden',
      'on',
      'yourself',
    ]);
  });

  it('revoke is for everyone active but yourself', () => {
    expect([MEMBER, ADMIN, YOU].map((on) => shown(revoke, on))).toEqual(['on', 'on', 'yourself']);
  });

  it('a renewal code or TAK code is not made for another admin, but for yourself it is', () => {
    for (const action of [renewalCode, takCode]) {
      expect([MEMBER, ADMIN, YOU].map((on) => shown(action, on))).toEqual([
        'on',
        'admin_key_for_admin',
        'on',
      ]);
    }
  });

  it('no action is offered on a member who is waiting, rejected or revoked', () => {
    for (const state of ['pending', 'rejected', 'revoked'] as const) {
      for (const action of [promote, demote, revoke, renewalCode, takCode]) {
        expect(action.offered(target(false, { state })), state).toBe(false);
        expect(action.offered(target(true, { state })), state).toBe(false);
      }
    }
  });

  it('says why in both languages: on yourself the page’s note, else the server’s reason', () => {
    expect(refusalText(en, 'yourself')).toBe(
      'This is you: you cannot demote or revoke yourself. Another admin can.',
    );
    expect(refusalText(fi, 'yourself')).toMatch(/^Tämä olet sinä: et voi alentaa/);
    expect(refusalText(en, 'admin_key_for_admin')).toMatch(
      /^No admin makes a key for another admin: demote them first/,
    );
    expect(refusalText(fi, 'admin_key_for_admin')).toMatch(
      /^Ylläpitäjä ei tee avainta toiselle ylläpitäjälle/,
    );
  });
});

describe('the member actions: labels and the question asked first, in English and Finnish', () => {
  it('promote names what the new admin can do', () => {
    expect(promote.label(en)).toBe('Promote to admin');
    expect(promote.label(fi)).toBe('Ylennä ylläpitäjäksi');
    expect(promote.question(en, 'Ranger1')).toEqual({
      title: 'Make Ranger1 an admin?',
      text: expect.stringContaining('promote, demote and revoke members, you included') as string,
      confirm: 'Make admin',
    });
    expect(promote.question(fi, 'Ranger1').title).toBe('Ylennetäänkö Ranger1 ylläpitäjäksi?');
    expect(promote.question(fi, 'Ranger1').text).toContain('myös sinut');
  });

  it('demote says their invite codes are deactivated', () => {
    expect(demote.label(en)).toBe('Demote to member');
    expect(demote.question(en, 'Boss1')).toEqual({
      title: 'Demote Boss1 to member?',
      text: expect.stringContaining('Every invite code Boss1 created is deactivated now') as string,
      confirm: 'Demote and deactivate their invite codes',
    });
    expect(demote.label(fi)).toBe('Alenna jäseneksi');
    expect(demote.question(fi, 'Boss1').text).toContain(
      'luomansa kutsukoodit poistetaan nyt käytöstä',
    );
  });

  it('revoke warns that it cannot be undone', () => {
    expect(revoke.label(en)).toBe('Revoke member');
    expect(revoke.question(en, 'Ranger2')).toEqual({
      title: 'Revoke Ranger2?',
      text: expect.stringMatching(/^This cannot be undone\. Ranger2 is removed/) as string,
      confirm: 'Revoke member',
    });
    expect(revoke.label(fi)).toBe('Poista jäsen');
    expect(revoke.question(fi, 'Ranger2').text).toMatch(/^Tätä ei voi perua\./);
  });

  it('a renewal code asks only while the member holds working keys, and names how many', () => {
    expect(renewalCode.label(en)).toBe('Make a renewal code');
    expect(renewalCode.label(fi)).toBe('Luo uusimiskoodi');
    expect(renewalCode.question(en, 'Ranger1', 0)).toBeNull();
    expect(renewalCode.question(en, 'Ranger1', 2)).toEqual({
      title: 'Revoke their keys?',
      text: expect.stringMatching(/their 2 keys stop working/) as string,
      confirm: 'Revoke 2 keys and make the code',
    });
    expect(renewalCode.question(fi, 'Ranger1', 2)?.confirm).toMatch(/^Mitätöi 2 avainta/);
  });
});

describe('the member actions: a refusal said', () => {
  const refused = (detail: string, reason?: 'last_admin') =>
    new ApiError(409, detail, undefined, reason);

  it('a 409 without a reason names yourself or the last admin, with the server’s words', () => {
    expect(demote.failure(en, refused('You cannot demote yourself'))).toBe(
      'Demoting failed: You cannot revoke or demote yourself, and the last admin must stay an admin. (You cannot demote yourself)',
    );
    expect(revoke.failure(en, refused('You cannot revoke yourself'))).toMatch(
      /^Revoking failed: You cannot revoke or demote yourself.*\(You cannot revoke yourself\)$/,
    );
  });

  it('a reason is said in the reader’s language, not in the server’s English', () => {
    const text = demote.failure(fi, refused('The last admin cannot be demoted', 'last_admin'));
    expect(text).toBe(
      'Alentaminen epäonnistui: Hän on viimeinen ylläpitäjä: ylennä ensin joku toinen ylläpitäjäksi, jotta yksikölle jää ylläpitäjä.',
    );
  });
});
