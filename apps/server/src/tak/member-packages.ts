import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { ForbiddenError } from '../errors.js';
import { recordMemberIssuance } from '../modules/certificates/issuance.js';
import type { CertificateService } from '../modules/certificates/service.js';
import { findMemberByCallsign } from '../modules/people/repository.js';
import { buildTakPackages, type TakPackage, type TakSettings } from './packages.js';
import { buildTakTruststore } from './truststore.js';

export interface TakPackageConfig extends TakSettings {
  truststorePemFile: string | undefined;
}

export function takPackageConfig(config: Config): TakPackageConfig {
  return {
    takHost: config.takHost,
    takPort: config.takPort,
    deployment: config.deployment,
    truststorePassword: config.takTruststorePassword,
    truststorePemFile: config.takTruststorePemFile,
  };
}

export interface MemberPackages {
  /** As the member's record has it. */
  callsign: string;
  /** The one certificate minted for these packages (recorded with purpose `tak`). */
  serial: string;
  packages: TakPackage[];
}

/** Who asked, for the audit log. */
export interface PackageRequester {
  actor: string;
  clientAddress: string | null;
}

/**
 * The TAK settings packages of one member (product.md §6), for the API and the CLI alike: one
 * fresh key pair and certificate per call, the same keystore in all three zips.
 */
export class TakPackageBuilder {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly certificates: CertificateService,
    private readonly settings: TakPackageConfig,
    private readonly now: () => Date,
  ) {}

  /** 403 (ForbiddenError) unless `callsign` is an active member when the certificate is recorded. */
  async build(callsign: string, requester: PackageRequester): Promise<MemberPackages> {
    const known = await findMemberByCallsign(this.db, callsign);
    if (known?.status !== 'active') throw new ForbiddenError('Not a valid user');
    const owner = known.callsign;
    // Key generation is the slow part: done before the transaction, which only records.
    // ATAK refuses AES-encrypted keystores: always the legacy format here.
    const { issued, pfx: keystore } = await this.certificates.mintMemberKeystore(owner, 'legacy');
    const truststore = await buildTakTruststore(
      { pemFile: this.settings.truststorePemFile, caChainPem: this.certificates.chainPem },
      this.settings.truststorePassword,
      this.settings.deployment,
    );
    const packages = buildTakPackages(this.settings, { callsign: owner, keystore, truststore });
    await recordMemberIssuance(this.db, this.certificates, {
      issued,
      callsign: owner,
      purpose: 'tak',
      actor: requester.actor,
      action: 'tak.packages',
      clientAddress: requester.clientAddress,
      detail: {},
      at: this.now().getTime(),
    });
    return { callsign: owner, serial: issued.serial, packages };
  }
}
