import type { CertificateAuthority } from '../ca/authority.js';
import type { Config } from '../config.js';
import type { AuditService } from './audit/service.js';
import type { FailureBudget } from './auth/failure-budget.js';
import type { SignOutService } from './firstuser/sign-out.js';
import type { MemberLookup } from './auth/identity.js';
import type { TokenService } from './auth/token-service.js';
import type { BulkService } from './bulk/service.js';
import type { KeyLifecycle } from './certificates/key-lifecycle.js';
import type { RevocationReceipt } from './certificates/revocation-receipt.js';
import type { TakPresence } from './certificates/presence.js';
import type { CertificateService } from './certificates/service.js';
import type { CaRolloverService } from './certificates/rollover.js';
import type { EnrollmentService } from './enrollment/service.js';
import type { FirstuserService } from './firstuser/service.js';
import type { DirectoryPublisher } from './groups/directory-publisher.js';
import type { GroupService } from './groups/service.js';
import type { InstructionsService } from './instructions/service.js';
import type { InviteService } from './invites/service.js';
import type { KeyService } from './keys/service.js';
import type { Actor } from './auth/actor.js';
import type { PeopleService, RevocationResult } from './people/service.js';
import type { RenewalCodes } from './renewal/service.js';
import type { PresetService } from './presets/service.js';
import type { EnrollmentFaceTrustService } from './tak/enrollment-face-trust.js';
import type { TakReadinessService } from './tak/readiness.js';
import type { TakPackageService } from './tak/service.js';
import type { TakEnrollment } from './tak/tak-enrollment.js';
import type { TakEnrollmentTokens } from './tak/tak-enrollment-tokens.js';

/**
 * Every service of the portal, built once by `openPortal` (portal.ts, the composition root):
 * the routes of both faces and the CLI receive them and construct none.
 */
export interface PortalServices {
  tokens: TokenService;
  members: MemberLookup;
  certificates: CertificateService;
  /** The issuing CA's rollover (docs/operations.md#rolling-the-issuing-ca-over): begin, finish, where it stands. */
  caRollover: CaRolloverService;
  /** OCSP requests and CRL fetches recorded as evidence of a TAK Server (docs/operations.md#tak-readiness). */
  presence: TakPresence;
  /** Failed guesses per client address, in the database (every instance spends the same). */
  failureBudget: FailureBudget;
  /** Bearer tokens ended on the server (POST token/sign-out). */
  signOut: SignOutService;
  firstuser: FirstuserService;
  enrollment: EnrollmentService;
  people: PeopleService;
  /** The operations of commands/ that span modules, bound to the portal's database and clock. */
  memberCommands: MemberCommands;
  invites: InviteService;
  bulk: BulkService;
  presets: PresetService;
  /** Groups (docs/directory.md). */
  groups: GroupService;
  keys: KeyService;
  keyLifecycle: KeyLifecycle;
  renewalCodes: RenewalCodes;
  instructions: InstructionsService;
  audit: AuditService;
  takPackages: TakPackageService;
  takEnrollmentTokens: TakEnrollmentTokens;
  takEnrollment: TakEnrollment;
  /** Whether phones trust the TAK enrollment face by themselves (docs/tak.md#one-scan-enrollment-the-tak-enrollment-face). */
  takEnrollmentFaceTrust: EnrollmentFaceTrustService;
  takReadiness: TakReadinessService;
}

/** Revoking and demoting a member change people, certificates and invites at once (commands/). */
export interface MemberCommands {
  /**
   * DELETE people/{callsign}: the member and every key they hold revoked, their invites stopped;
   * then the receipt, read back from the CRL and OCSP after the commit. A check that fails is
   * given to `onCheckError` (for the log) and reported as null: the revocation has happened.
   */
  revoke(
    actor: Actor,
    callsign: string,
    onCheckError?: (error: unknown, check: 'crl' | 'ocsp') => void,
  ): Promise<RevocationResult & { receipt: RevocationReceipt }>;
  /** POST enrollment/demote: the admin role taken, the invites they made deactivated. */
  demote(actor: Actor, callsign: string): Promise<string>;
}

/** What every module's routes are built with (a Portal is one). */
export interface RouteContext {
  config: Config;
  /** The CA's own certificates (their expiry); signing goes through `services.certificates`. */
  ca: CertificateAuthority;
  services: PortalServices;
  /** The LDAP directory's reconciler (docs/directory.md); undefined without one. */
  directory: DirectoryPublisher | undefined;
  /** The clock of the rules (token lifetimes, code expiry). */
  now: () => Date;
}
