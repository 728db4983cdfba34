import type { EnrollmentState } from '@callsign/contract';
import type { ColumnType } from 'kysely';

// Times are epoch milliseconds in bigint columns (the pg pool parses int8 as a JS number), so the
// same migrations and queries work on SQLite and PostgreSQL. There are no boolean columns: a
// nullable time (`revoked_at`, `deactivated_at`) says both whether and when.

/** A column with a database default: optional on insert. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;
/** A column that is written once and never updated. */
type Immutable<T> = ColumnType<T, T, never>;
/** A column with a database default that is written once, if at all, and never updated. */
type ImmutableDefaulted<T> = ColumnType<T, T | undefined, never>;

export type MemberStatus = 'pending' | 'active' | 'rejected' | 'revoked';
export type Role = 'admin';
/** `enrollments.state` holds the numbers the API shows in `enrollment/list` (`ENROLLMENT_STATE`). */
export type { EnrollmentState };
/**
 * admin: makes the first admin; exchange: signs in the admin add-admin made; renewal: signs a
 * member in again after their key expired (an admin makes it).
 */
export type LoginCodeKind = 'admin' | 'exchange' | 'renewal';
/**
 * What a certificate is for: a member's browser key (.pfx), the key in a TAK settings package, a
 * key a TAK client made itself and enrolled for, or a TLS server's.
 */
export type CertificatePurpose = 'browser' | 'tak-package' | 'tak-enroll' | 'server';
export type AuditOutcome = 'success' | 'failure';

/** Everyone who holds a callsign, in any state: a callsign is never reused. */
export interface MembersTable {
  /** As the member typed it; unique case-insensitively (index on lower(callsign)). */
  callsign: Immutable<string>;
  status: MemberStatus;
  /** The invite code the member enrolled with; null for admins made by add-admin. */
  invite_code: Immutable<string | null>;
  created_at: Immutable<number>;
  updated_at: number;
  revoked_at: number | null;
  /** The member's TAK preset: team colour and role as ATAK names them. */
  tak_team: Defaulted<string>;
  tak_role: Defaulted<string>;
  /** When a TAK Server last asked about one of the member's keys (OCSP); null: never seen. */
  last_seen_tak_at: Defaulted<number | null>;
}

export interface MemberRolesTable {
  callsign: Immutable<string>;
  role: Immutable<Role>;
}

/** One per enrollee (callsign is the key), kept after the decision. */
export interface EnrollmentsTable {
  callsign: Immutable<string>;
  invite_code: Immutable<string>;
  /** SHA-256 of the approval code (upper-cased); the code is shown once, to the enrollee. */
  approval_code_hash: Immutable<string>;
  state: EnrollmentState;
  created_at: Immutable<number>;
  decided_at: number | null;
  /** Callsign of the admin who accepted or locked it. */
  decided_by: string | null;
  lock_reason: string | null;
}

export interface InviteCodesTable {
  code: Immutable<string>;
  created_at: Immutable<number>;
  /** Changes only when an admin re-activates a code whose owner is no longer an admin. */
  owner_callsign: string | null;
  label: string | null;
  expires_at: number | null;
  max_uses: number | null;
  use_count: Defaulted<number>;
  deactivated_at: number | null;
  deleted_at: number | null;
  /** 1: an enrollment with the code is approved at once; 0: an admin approves it. */
  auto_approve: ImmutableDefaulted<0 | 1>;
  /** The TAK preset of the members it admits; null: the default one. */
  tak_team: ImmutableDefaulted<string | null>;
  tak_role: ImmutableDefaulted<string | null>;
  /** A bulk slip's callsign: the only one it enrolls, and nobody else's while the slip is live. */
  reserved_callsign: ImmutableDefaulted<string | null>;
  /** The bulk call that made the slip. */
  batch_id: ImmutableDefaulted<string | null>;
  /** The groups it gives the member it admits: JSON `[{"name","direction"}]`; null: none. */
  tak_groups: ImmutableDefaulted<string | null>;
}

/** Admin, exchange and renewal codes, stored only as a hash. */
export interface LoginCodesTable {
  code_hash: Immutable<string>;
  kind: Immutable<LoginCodeKind>;
  /** The member an exchange or renewal code signs in; null for admin codes. */
  subject_callsign: Immutable<string | null>;
  created_at: Immutable<number>;
  expires_at: Immutable<number>;
  used_at: number | null;
  /** The admin who made a renewal code; who asked for an admin code (`first-start`, `cli`). */
  created_by: ImmutableDefaulted<string | null>;
}

export interface IssuedCertificatesTable {
  /** Hex serial number as written in the certificate. */
  serial: Immutable<string>;
  /** The certificate's CN: the member's callsign, or the server name for `server` ones. */
  callsign: Immutable<string>;
  purpose: Immutable<CertificatePurpose>;
  not_before: Immutable<number>;
  not_after: Immutable<number>;
  issued_at: Immutable<number>;
  revoked_at: number | null;
  revocation_reason: string | null;
  /** The device a `tak-enroll` certificate was enrolled from (the TAK client's own id). */
  client_uid: Defaulted<string | null>;
  /** The admin whose code the key was minted through (docs/api.md); null for the member's own. */
  made_by: ImmutableDefaulted<string | null>;
  /** When an OCSP request last asked about this key (at most once a minute), and from where. */
  last_checked_at: Defaulted<number | null>;
  last_checked_from: Defaulted<string | null>;
  /** SHA-256 of the DER, as TAK Server writes it (ca/fingerprint.ts); null: issued before 0012. */
  sha256_fingerprint: ImmutableDefaulted<string | null>;
  /** Which issuing CA signed it: 1 the CA directory's, n ≥ 2 `ca_issuers`' (0013). */
  ca_generation: ImmutableDefaulted<number>;
}

/** An issuing CA made by `ca rollover begin` (generation ≥ 2; migration 0013). */
export interface CaIssuersTable {
  generation: Immutable<number>;
  certificate_pem: Immutable<string>;
  /** PKCS#8 PEM, encrypted with the CA passphrase when one is set. */
  key_pem: Immutable<string>;
  begun_at: Immutable<number>;
  begun_by: Immutable<string>;
  /** The date members on the CA before it are asked to renew by (the banner's). */
  renew_by: Immutable<number>;
  /** When `ca rollover finish` retired the CA before it; null during the overlap. */
  finished_at: number | null;
}

/** What a relying party fetched last, per kind: one row each for `ocsp` and `crl`. */
export interface RevocationFetchesTable {
  kind: Immutable<'ocsp' | 'crl'>;
  fetched_at: number;
  address: string | null;
}

/** JWT ids that have been spent (single-use tokens), kept until the token expires. */
export interface UsedTokensTable {
  jti: Immutable<string>;
  used_at: Immutable<number>;
  expires_at: Immutable<number>;
}

/** A bearer token its holder signed out (modules/firstuser/sign-out.ts), kept until it expires. */
export interface SignedOutTokensTable {
  jti: Immutable<string>;
  signed_out_at: Immutable<number>;
  expires_at: Immutable<number>;
}

export interface AuditEventsTable {
  /** Time-ordered UUIDv7 made by the application. */
  id: Immutable<string>;
  occurred_at: Immutable<number>;
  actor: Immutable<string | null>;
  action: Immutable<string>;
  target: Immutable<string | null>;
  outcome: Immutable<AuditOutcome>;
  client_address: Immutable<string | null>;
  /** JSON text. */
  detail: Immutable<string | null>;
}

/** One client address's current minute of failed guesses (http/failure-budget.ts). */
export interface FailureWindowsTable {
  address: Immutable<string>;
  /** When the window began; a window older than a minute is over and starts again. */
  started_at: number;
  failures: number;
}

/**
 * A member's one-time token of the TAK certificate-enrollment protocol: one row per member (a new
 * token replaces the last), stored only as a hash (modules/tak-enroll).
 */
export interface TakEnrollmentTokensTable {
  /** As the member's record has it. */
  callsign: Immutable<string>;
  /** SHA-256 of the token, upper-cased (modules/auth/codes.ts). */
  token_hash: string;
  created_at: number;
  expires_at: number;
  /** Who made it: the member, or the admin at an enrollment station. */
  created_by: string;
  /** When it signed a certificate; a spent token only fetches the profile, for a while. */
  used_at: number | null;
  /** The device that spent it (the TAK client's own id). */
  client_uid: string | null;
  /** The certificate it signed. */
  serial: string | null;
  /**
   * The admin whose code it rests on (an enrollment station's, or the renewal code that opened
   * the member's session); null when the member made it on their own.
   */
  made_by: string | null;
}

/** A group (docs/directory.md): TAK Server's group, owned by the portal. */
export interface GroupsTable {
  name: Immutable<string>;
  description: Defaulted<string>;
  created_at: Immutable<number>;
  created_by: Immutable<string | null>;
}

/** TAK Server's direction: `both`, `in` (may send) or `out` (receives only). */
export type GroupDirection = 'both' | 'in' | 'out';

/** A member's place in a group. */
export interface MemberGroupsTable {
  callsign: Immutable<string>;
  group_name: Immutable<string>;
  direction: Defaulted<GroupDirection>;
  added_at: number;
}

export interface Database {
  members: MembersTable;
  member_roles: MemberRolesTable;
  enrollments: EnrollmentsTable;
  invite_codes: InviteCodesTable;
  login_codes: LoginCodesTable;
  issued_certificates: IssuedCertificatesTable;
  ca_issuers: CaIssuersTable;
  used_tokens: UsedTokensTable;
  signed_out_tokens: SignedOutTokensTable;
  audit_events: AuditEventsTable;
  failure_windows: FailureWindowsTable;
  tak_enrollment_tokens: TakEnrollmentTokensTable;
  revocation_fetches: RevocationFetchesTable;
  groups: GroupsTable;
  member_groups: MemberGroupsTable;
}
