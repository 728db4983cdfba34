import type { KeyFormat } from '@callsign/contract';
import { ForbiddenError } from '../../errors.js';
import type { CertificateService } from '../certificates/service.js';
import type { Actor } from '../auth/actor.js';
import { sameCallsign } from '../people/callsign.js';

export interface KeyDownload {
  /** As the member's record has it: the file name and the password. */
  callsign: string;
  serial: string;
  pfx: Buffer;
}

/**
 * A member's own key as PKCS#12 (docs/api.md): every download mints a fresh key pair and
 * certificate; the key goes into the keystore and is forgotten.
 */
export class KeyService {
  constructor(private readonly certificates: CertificateService) {}

  /** `actor` is a valid user; 403 when `callsign` is not theirs (in any case). */
  async download(actor: Actor, callsign: string, format: KeyFormat): Promise<KeyDownload> {
    if (!sameCallsign(callsign, actor.callsign)) {
      throw new ForbiddenError('You can only download your own key');
    }
    const issued = await this.certificates.issueKeystore(
      {
        callsign: actor.callsign,
        purpose: 'browser',
        actor,
        audit: { action: 'key.download', detail: { format } },
      },
      format,
    );
    return { callsign: issued.callsign, serial: issued.serial, pfx: issued.keystore };
  }
}
