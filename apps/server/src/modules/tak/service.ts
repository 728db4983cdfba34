import type { Preset } from '@callsign/contract';
import { buildTakPackages, type TakPackage } from '../../tak/packages.js';
import { PACK_ON_THIS_THREAD, type Pkcs12Packing } from '../../ca/pkcs12-jobs.js';
import { buildTakTruststore } from '../../tak/truststore.js';
import type { Actor } from '../auth/actor.js';
import type { CertificateService } from '../certificates/service.js';
import type { TakSiteSettings } from './settings.js';

export interface MemberPackages {
  /** As the member's record has it. */
  callsign: string;
  /** The one certificate minted for these packages (recorded with purpose `tak`). */
  serial: string;
  packages: TakPackage[];
}

/** Where the packages find the member's TAK preset (team and role). */
export interface PresetSource {
  presetFor(callsign: string): Promise<Preset>;
}

/**
 * The TAK settings packages of one member (docs/tak.md), for the API and the CLI alike: one
 * fresh key pair and certificate per call, the same keystore in all three zips, the member's
 * team and role in every one.
 */
export class TakPackageService {
  constructor(
    private readonly certificates: CertificateService,
    private readonly settings: TakSiteSettings,
    private readonly presets: PresetSource,
    /** Where the truststore is packed: the service's worker threads, or this thread. */
    private readonly packing: Pkcs12Packing = PACK_ON_THIS_THREAD,
  ) {}

  /**
   * 403 (ForbiddenError) unless `callsign` is an active member when the certificate is recorded;
   * 429 past the member's minting limits. `actor` is who asks, for the audit log.
   */
  async build(callsign: string, actor: Actor): Promise<MemberPackages> {
    // ATAK refuses AES-encrypted keystores: always the legacy format here.
    const issued = await this.certificates.issueKeystore(
      { callsign, purpose: 'tak-package', actor, audit: { action: 'tak.packages' } },
      'legacy',
    );
    const truststore = await buildTakTruststore(
      { pemFile: this.settings.truststorePemFile, caChainPem: this.certificates.trustPem },
      this.settings.truststorePassword,
      this.settings.deployment,
      this.packing,
    );
    const packages = buildTakPackages(this.settings, {
      callsign: issued.callsign,
      keystore: issued.keystore,
      truststore,
      preset: await this.presets.presetFor(issued.callsign),
    });
    return { callsign: issued.callsign, serial: issued.serial, packages };
  }
}
