import type { Kysely } from 'kysely';
import { CODE_LENGTH } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import { lockForTransaction } from '../../db/transaction.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { appendAuditEvent } from '../audit/service.js';
import type { Actor } from '../auth/actor.js';
import { generateCode, hashCode } from '../auth/codes.js';
import type { CertificateService } from '../certificates/service.js';
import { replaceLoginCode } from '../firstuser/service.js';
import { MEMBERSHIP_LOCK } from '../people/membership.js';
import { findMember, refuseCodeForAnotherAdmin } from '../people/service.js';

/** How long a renewal code can be used: long enough to reach a member who is away. */
export const RENEWAL_CODE_TTL_MS = 72 * 3_600_000;

export interface RenewalCode {
  code: string;
  expiresAt: Date;
  /** How many live keys of the member were revoked with the code. */
  keysRevoked: number;
}

export interface RenewalCodeOptions {
  /** Revoke the member's live keys with the code (a lost phone); needed when they hold any. */
  revokeKeys?: boolean;
}

/**
 * Renewal codes, the admin's way to give a member with expired or lost keys a new one: an admin
 * makes a member a single-use code; entered on /login
 * (token/code/exchange) it signs them in under their own callsign, straight to the key
 * download, with no new enrollment or approval. Never for another admin (409). A member who
 * still holds live keys gets one only with `revokeKeys`, which revokes those keys in the same
 * transaction: a code never gives a second, silent way into a working identity. The keys minted
 * with the session it opens record the admin who made it (`made_by`). Stored only as a hash,
 * like every login code; a new code replaces the member's unused one. The code is a login code
 * (the `login_codes` table of the firstuser module, which signs in with it: `replaceLoginCode`).
 */
export class RenewalCodes {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly certificates: CertificateService,
    private readonly now: () => Date,
  ) {}

  /**
   * 404 unless `callsign` is an active member (a revoked one never comes back this way); 409 for
   * another admin, and for a member with live keys without `revokeKeys`.
   */
  create(actor: Actor, callsign: string, options: RenewalCodeOptions = {}): Promise<RenewalCode> {
    const at = this.now().getTime();
    const code = generateCode(CODE_LENGTH.renewal);
    const expiresAt = at + RENEWAL_CODE_TTL_MS;
    return this.db.transaction().execute(async (trx) => {
      // Under the lock a revocation either comes first (no code) or after (the code is refused).
      await lockForTransaction(trx, MEMBERSHIP_LOCK);
      const member = await findMember(trx, callsign);
      if (member?.status !== 'active') throw new NotFoundError(`No active member ${callsign}`);
      refuseCodeForAnotherAdmin(member, actor);
      const live = await this.certificates.liveKeyCount(trx, member.callsign);
      if (live > 0 && options.revokeKeys !== true) {
        throw new ConflictError(
          `${member.callsign} still holds ${live} working key(s): send {"revoke_keys": true} to ` +
            'revoke them with the code (a lost phone)',
        );
      }
      const revoked =
        live === 0
          ? []
          : await this.certificates.revokeAllOf(trx, member.callsign, 'renewal code', 'live');
      const replaced = await replaceLoginCode(trx, {
        codeHash: hashCode(code),
        kind: 'renewal',
        subjectCallsign: member.callsign,
        createdAt: at,
        expiresAt,
        createdBy: actor.callsign,
      });
      await appendAuditEvent(trx, {
        at,
        actor: actor.callsign,
        action: 'renewal-code.create',
        target: member.callsign,
        outcome: 'success',
        clientAddress: actor.clientAddress,
        detail: {
          expiresAt: new Date(expiresAt).toISOString(),
          replaced,
          keys_revoked: revoked.length,
          ...(revoked.length === 0 ? {} : { revoked_serials: revoked }),
        },
      });
      return { code, expiresAt: new Date(expiresAt), keysRevoked: revoked.length };
    });
  }
}
