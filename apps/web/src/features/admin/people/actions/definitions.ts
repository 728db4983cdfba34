import type { MemberRow, RenewalCodeResponse, RevokePersonResponse } from '@callsign/contract';
import type { TFunction } from 'i18next';
import { ApiError, errorMessage } from '../../../../lib/api-client';
import { errorText, reasonText } from '../../../../lib/error-text';
import { isConflict } from '../../shared/api/failure';
import { createRenewalCode } from '../api/keys';
import { changeRole, revokePerson } from '../api/people';

/**
 * The actions an admin takes on one member, each defined once: its label, the question asked
 * first, when it is offered and why it is off, its API call and what a refusal says. Every
 * screen that offers one (the member page, its keys section, the TAK enrollment station the app
 * adds) reads it from here.
 */

/** Who an action is for: the member's row and whether it is the signed-in admin. */
export interface ActionTarget {
  member: Pick<MemberRow, 'callsign' | 'admin' | 'state'>;
  self: boolean;
}

/** Why an offered action is off: the server's refusal reason for the same case. */
export type Refusal = 'yourself' | 'admin_key_for_admin';

/** The question asked before the action runs, in the reader's language. */
export interface Question {
  title: string;
  text: string;
  confirm: string;
}

interface Availability {
  /** Whether the action shows for this member at all. */
  offered: (target: ActionTarget) => boolean;
  /** Why it is off although offered, or null when the admin may run it. */
  refusal: (target: ActionTarget) => Refusal | null;
}

interface MemberAction extends Availability {
  label: (t: TFunction) => string;
  /** The question asked first (null: none needed). */
  question: (t: TFunction, callsign: string, ...more: never[]) => Question | null;
  /** The API call. */
  run: (callsign: string, ...more: never[]) => Promise<unknown>;
  /** What to say once it succeeded. */
  done?: (t: TFunction, callsign: string) => string;
  /** What to say when the call failed: the action, then why. */
  failure: (t: TFunction, error: unknown) => string;
}

const active = ({ member }: ActionTarget) => member.state === 'active';

/** Demote and revoke: never on yourself (the server answers 409 `yourself`). */
const notOnYourself = ({ self }: ActionTarget): Refusal | null => (self ? 'yourself' : null);

/**
 * A renewal code or a TAK enrollment code: not for another admin (the server answers 409
 * `admin_key_for_admin`; docs/api.md); an admin may make their own.
 */
const notForAnotherAdmin = ({ member, self }: ActionTarget): Refusal | null =>
  member.admin && !self ? 'admin_key_for_admin' : null;

/** A refusal in words: on yourself the page's own note, else the server's reason. */
export function refusalText(t: TFunction, refusal: Refusal): string {
  return refusal === 'yourself' ? t('admin.member.self') : reasonText(t, refusal);
}

/**
 * Promoting, demoting or revoking failed: the action, then why (a 409 without a reason says who
 * cannot be changed: yourself, or the last admin).
 */
function changeFailure(action: 'promote' | 'demote' | 'revoke') {
  return (t: TFunction, error: unknown): string => {
    const saidWhy = error instanceof ApiError && error.reason !== undefined;
    const reason =
      isConflict(error) && !saidWhy
        ? `${t('admin.users.conflict')} (${errorMessage(error)})`
        : errorText(t, error);
    return `${t(`admin.users.${action}_failed`)} ${reason}`;
  };
}

export const promote = {
  offered: (target: ActionTarget) => active(target) && !target.member.admin,
  refusal: () => null,
  label: (t: TFunction) => t('admin.users.promote'),
  question: (t: TFunction, callsign: string): Question => ({
    title: t('admin.member.promote_title', { callsign }),
    text: t('admin.member.promote_effects', { callsign }),
    confirm: t('admin.member.promote_confirm'),
  }),
  run: (callsign: string): Promise<string> => changeRole('promote', callsign),
  done: (t: TFunction, callsign: string) => t('admin.users.promoted', { callsign }),
  failure: changeFailure('promote'),
} satisfies MemberAction;

export const demote = {
  offered: (target: ActionTarget) => active(target) && target.member.admin,
  refusal: notOnYourself,
  label: (t: TFunction) => t('admin.users.demote'),
  question: (t: TFunction, callsign: string): Question => ({
    title: t('admin.member.demote_title', { callsign }),
    text: t('admin.member.demote_effects', { callsign }),
    confirm: t('admin.member.demote_confirm'),
  }),
  run: (callsign: string): Promise<string> => changeRole('demote', callsign),
  done: (t: TFunction, callsign: string) => t('admin.users.demoted', { callsign }),
  failure: changeFailure('demote'),
} satisfies MemberAction;

export const revoke = {
  offered: active,
  refusal: notOnYourself,
  label: (t: TFunction) => t('admin.member.revoke'),
  question: (t: TFunction, callsign: string): Question => ({
    title: t('admin.users.revoke_title', { callsign }),
    text: t('admin.users.revoke_warning', { callsign }),
    confirm: t('admin.member.revoke'),
  }),
  // Its outcome is the revocation's receipt (components/revocation-receipt.tsx).
  run: (callsign: string): Promise<RevokePersonResponse> => revokePerson(callsign),
  failure: changeFailure('revoke'),
} satisfies MemberAction;

export const renewalCode = {
  offered: active,
  refusal: notForAnotherAdmin,
  label: (t: TFunction) => t('admin.keys.renewal_make'),
  /** Asked only while the member still holds working keys (`liveKeys`): the code revokes them. */
  question: (t: TFunction, callsign: string, liveKeys: number): Question | null =>
    liveKeys === 0
      ? null
      : {
          title: t('admin.keys.renewal_revoke_title'),
          text: t('admin.keys.renewal_revoke_text', { count: liveKeys, callsign }),
          confirm: t('admin.keys.renewal_revoke_confirm', { count: liveKeys }),
        },
  run: (callsign: string, liveKeys: number): Promise<RenewalCodeResponse> =>
    createRenewalCode({ callsign, revokeKeys: liveKeys > 0 }),
  failure: (t: TFunction, error: unknown) =>
    `${t('admin.keys.renewal_failed')} ${errorText(t, error)}`,
} satisfies MemberAction;

/**
 * A TAK enrollment code for the member (the admin's enrollment station): when it is offered.
 * Its label, call, dialog and failure text are the TAK feature's (`EnrollmentQrButton`, made at
 * once without a question: it voids only the member's own unused code), which the app puts on
 * the member page where this offers it; a feature imports no other (docs/architecture.md).
 */
export const takCode = {
  offered: active,
  refusal: notForAnotherAdmin,
} satisfies Availability;
