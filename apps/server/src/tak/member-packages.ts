import type { Kysely } from 'kysely';
import { buildPkcs12 } from '../ca/pkcs12.js';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { lockForTransaction } from '../db/transaction.js';
import { ForbiddenError } from '../errors.js';
import { appendAuditEvent } from '../modules/audit/repository.js';
import type { CertificateService } from '../modules/certificates/service.js';
import { findMemberByCallsign } from '../modules/people/repository.js';
import { MEMBERSHIP_LOCK } from '../modules/people/revocation.js';
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
    const issued = await this.certificates.mintMemberCertificate(owner);
    const keystore = await buildPkcs12({
      privateKeyPem: issued.privateKeyPem,
      certificatePem: issued.certificatePem,
      chainPem: issued.chainPem,
      password: owner,
      friendlyName: owner,
      format: 'legacy',
    });
    const truststore = await buildTakTruststore(
      { pemFile: this.settings.truststorePemFile, caChainPem: this.certificates.chainPem },
      this.settings.truststorePassword,
      this.settings.deployment,
    );
    const packages = buildTakPackages(this.settings, { callsign: owner, keystore, truststore });
    // Under the membership lock, so a revocation either comes first (and no certificate is
    // recorded) or comes after and revokes this one too.
    await this.db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, MEMBERSHIP_LOCK);
      const member = await findMemberByCallsign(trx, owner);
      if (member?.status !== 'active') throw new ForbiddenError('Not a valid user');
      await this.certificates.record(trx, issued, owner, 'tak');
      await appendAuditEvent(trx, {
        at: this.now().getTime(),
        actor: requester.actor,
        action: 'tak.packages',
        target: owner,
        outcome: 'success',
        clientAddress: requester.clientAddress,
        detail: { serial: issued.serial },
      });
    });
    return { callsign: owner, serial: issued.serial, packages };
  }
}
