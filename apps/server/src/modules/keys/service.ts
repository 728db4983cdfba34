import type { Kysely } from 'kysely';
import type { KeyFormat } from '@callsign/contract';
import type { Database } from '../../db/schema.js';
import { ForbiddenError } from '../../errors.js';
import { recordMemberIssuance } from '../certificates/issuance.js';
import type { CertificateService } from '../certificates/service.js';
import type { Actor } from '../auth/actor.js';

export interface KeyDownload {
  /** As the member's record has it: the file name and the password. */
  callsign: string;
  serial: string;
  pfx: Buffer;
}

/**
 * A member's own key as PKCS#12 (product.md §5): every download mints a fresh key pair and
 * certificate; the key goes into the keystore and is forgotten.
 */
export class KeyService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly certificates: CertificateService,
    private readonly now: () => Date,
  ) {}

  /** `actor` is a valid user; 403 when `callsign` is not theirs (in any case). */
  async download(actor: Actor, callsign: string, format: KeyFormat): Promise<KeyDownload> {
    if (callsign.toLowerCase() !== actor.callsign.toLowerCase()) {
      throw new ForbiddenError('You can only download your own key');
    }
    const owner = actor.callsign;
    // Key generation is the slow part: done before the transaction, which only records.
    const { issued, pfx } = await this.certificates.mintMemberKeystore(owner, format);
    await recordMemberIssuance(this.db, this.certificates, {
      issued,
      callsign: owner,
      purpose: 'member',
      actor: owner,
      action: 'key.download',
      clientAddress: actor.clientAddress,
      detail: { format },
      at: this.now().getTime(),
    });
    return { callsign: owner, serial: issued.serial, pfx };
  }
}
