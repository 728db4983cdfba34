import type { AuditAction } from '@callsign/contract';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hashCode } from '../../src/modules/auth/codes.js';
import { insertEnrollment } from '../../src/modules/enrollment/repository.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { insertMember } from '../../src/modules/people/repository.js';
import type { Portal } from '../../src/portal.js';

/** A member's key as a test presents it: the .pfx file, and the certificate inside it. */
export interface MemberKey {
  callsign: string;
  serial: string;
  /** The member certificate alone, as PEM. */
  certificatePem: string;
  pfxFile: string;
  password: string;
}

/** Members and enrollees a test starts from, written straight into a test portal's database. */
export interface MemberFixtures {
  /** An active member with a freshly issued certificate, packed as a legacy .pfx file. */
  addMember(callsign: string, options?: { roles?: 'admin'[] }): Promise<MemberKey>;
  /** Another key of an active member, issued as a download would (and counted alike). */
  issueKey(callsign: string): Promise<MemberKey>;
  /** Someone who enrolled with a new invite code and waits for approval; their enrollment JWT. */
  addPendingEnrollee(callsign: string, inviteCode: string): Promise<string>;
}

/** The fixtures on `portal`; key files go to `workDir`. */
export function memberFixtures(portal: Portal, workDir: string): MemberFixtures {
  const db = portal.database.db;
  const issueKey = async (callsign: string): Promise<MemberKey> => {
    const { certificates } = portal;
    const issued = await certificates.issueKeystore(
      {
        callsign,
        purpose: 'browser',
        actor: { callsign: 'test', clientAddress: null },
        // A test's own action, outside the portal's list (AUDIT_ACTION_GROUPS).
        audit: { action: 'test.issue-key' as AuditAction },
      },
      'legacy',
    );
    const pfx = issued.keystore;
    const pfxFile = path.join(workDir, `${callsign}-${issued.serial}.pfx`);
    await writeFile(pfxFile, pfx, { mode: 0o600 });
    return {
      callsign,
      serial: issued.serial,
      certificatePem: issued.certificatePem,
      pfxFile,
      password: callsign,
    };
  };
  return {
    issueKey,
    async addMember(callsign, options = {}) {
      await insertMember(db, {
        callsign,
        status: 'active',
        inviteCode: null,
        roles: options.roles ?? [],
        at: Date.now(),
      });
      return issueKey(callsign);
    },
    async addPendingEnrollee(callsign, inviteCode) {
      const at = Date.now();
      await insertInviteCode(db, { code: inviteCode, createdAt: at, ownerCallsign: null });
      await insertMember(db, { callsign, status: 'pending', inviteCode, roles: [], at });
      await insertEnrollment(db, {
        callsign,
        inviteCode,
        approvalCodeHash: hashCode('ABCD2345'),
        createdAt: at,
      });
      const token = await portal.tokens.issue({
        scope: 'enrollment',
        subject: callsign,
        ttlMs: 60_000,
      });
      return token.jwt;
    },
  };
}
