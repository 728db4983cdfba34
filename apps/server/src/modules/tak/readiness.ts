import { X509Certificate } from 'node:crypto';
import { caPaths, type TakReadinessResponse } from '@callsign/contract';
import { decodePemBlocks } from '../../ca/pem.js';
import type { Config } from '../../config.js';
import { truststoreCertificates } from '../../tak/truststore.js';
import type { CertificateService } from '../certificates/service.js';

/** `CN=a, O=b` from Node's one-attribute-per-line form. */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

/**
 * What the portal can see of the TAK side without reaching the TAK Server (issue: readiness): the
 * server the packages point at, the truststore they carry, and the CRL a TAK Server loads. The
 * rest (its certificate, its verdict on member keys) is for `tak-check`, which connects.
 */
export class TakReadinessService {
  constructor(
    private readonly config: Config,
    private readonly certificates: CertificateService,
    private readonly now: () => Date,
  ) {}

  async readiness(): Promise<TakReadinessResponse> {
    const { config } = this;
    const crl = await this.certificates.currentCrl();
    const now = this.now().getTime();
    return {
      tak: { host: config.takHost, port: config.takPort },
      truststore: await this.truststore(now),
      crl: {
        number: crl.crlNumber.toString(),
        this_update: crl.thisUpdate.toISOString(),
        next_update: crl.nextUpdate.toISOString(),
        age_seconds: Math.max(0, Math.round((now - crl.thisUpdate.getTime()) / 1000)),
        url: `${config.httpCaOrigin}${caPaths.crlPem}`,
      },
      check_command:
        `npm run --silent portal -- tak-check --host ${config.takHost} ` +
        `--port ${config.takPort}`,
    };
  }

  private async truststore(now: number): Promise<TakReadinessResponse['truststore']> {
    const file = this.config.takTruststorePemFile;
    const source = file === undefined ? 'portal-ca' : 'file';
    try {
      const pems = await truststoreCertificates({
        pemFile: file,
        caChainPem: this.certificates.chainPem,
      });
      const certificates = pems
        .flatMap((pem) => decodePemBlocks(pem, 'CERTIFICATE'))
        .map((der) => {
          const certificate = new X509Certificate(der);
          const notAfter = new Date(certificate.validTo);
          return {
            subject: oneLine(certificate.subject),
            issuer: oneLine(certificate.issuer),
            not_after: notAfter.toISOString(),
            expired: notAfter.getTime() <= now,
          };
        });
      return { source, file: file ?? null, certificates, error: null };
    } catch (error) {
      // The file is read at every download: a file gone since start is worth seeing here.
      const reason = error instanceof Error ? error.message : String(error);
      return { source, file: file ?? null, certificates: [], error: reason };
    }
  }
}
