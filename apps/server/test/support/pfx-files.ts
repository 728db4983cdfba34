import { X509Certificate } from 'node:crypto';
import { normalizeSerial } from '../../src/ca/serial.js';
import { run } from './processes.js';

/** A member's key as a file: the .pfx and its password. */
export interface PfxFile {
  pfxFile: string;
  password: string;
}

/** The member certificate inside a .pfx, as PEM, read by openssl as a TLS client reads it. */
export async function certificateInPfx({ pfxFile, password }: PfxFile): Promise<string> {
  const result = await run('openssl', [
    'pkcs12',
    '-in',
    pfxFile,
    '-passin',
    `pass:${password}`,
    '-nokeys',
    '-clcerts',
  ]);
  if (result.code !== 0) throw new Error(`openssl pkcs12 failed on ${pfxFile}: ${result.stderr}`);
  const match = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(
    result.stdout,
  );
  if (match === null) throw new Error(`no certificate in ${pfxFile}`);
  return match[0];
}

/** The serial of the certificate inside a .pfx, in the portal's one form (`normalizeSerial`). */
export async function leafSerialOf(key: PfxFile): Promise<string> {
  return normalizeSerial(new X509Certificate(await certificateInPfx(key)).serialNumber);
}
