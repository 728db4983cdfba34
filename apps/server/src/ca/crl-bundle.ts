import { X509Crl } from '@peculiar/x509';
import { decodePemBlocks, encodePem } from './pem.js';

/** Input a CRL bundle refuses: the message names the file and what is wrong with it. */
export class CrlBundleError extends Error {}

/** One CRL file given to the bundle: PEM (one or more `X509 CRL` blocks) or DER. */
export interface CrlSource {
  /** How the file is named in an error (its path). */
  readonly name: string;
  readonly bytes: Buffer;
}

export interface BundledCrl {
  readonly source: string;
  readonly issuer: string;
  readonly nextUpdate: Date | undefined;
  readonly revoked: number;
}

export interface CrlBundle {
  /** Every CRL as PEM (`X509 CRL`), the portal's first, concatenated. */
  readonly pem: string;
  readonly crls: readonly BundledCrl[];
}

const PEM_CRL_LABEL = 'X509 CRL';

function dersOf(source: CrlSource): Buffer[] {
  const text = source.bytes.toString('latin1');
  if (text.includes('-----BEGIN ')) {
    const blocks = decodePemBlocks(text, PEM_CRL_LABEL);
    if (blocks.length === 0) {
      const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(text)?.[1] ?? 'something else';
      throw new CrlBundleError(`${source.name}: not a CRL (the PEM holds ${label})`);
    }
    return blocks;
  }
  return [source.bytes];
}

function parse(source: CrlSource, der: Buffer, now: Date): BundledCrl & { der: Buffer } {
  let crl: X509Crl;
  try {
    crl = new X509Crl(der);
  } catch {
    throw new CrlBundleError(`${source.name}: not a CRL (neither PEM nor DER of a CRL)`);
  }
  // A relying party ignores a CRL past its nextUpdate and then cannot tell whether a key of
  // that CA is revoked: Java's PKIX checker refuses every client of the CA (docs/tak.md).
  if (crl.nextUpdate !== undefined && crl.nextUpdate.getTime() <= now.getTime()) {
    throw new CrlBundleError(
      `${source.name}: the CRL of ${crl.issuer} expired at ${crl.nextUpdate.toISOString()} ` +
        '(past its nextUpdate); fetch or sign a fresh one',
    );
  }
  if (crl.thisUpdate.getTime() > now.getTime() + 5 * 60 * 1000) {
    throw new CrlBundleError(
      `${source.name}: the CRL of ${crl.issuer} is not valid before ` +
        `${crl.thisUpdate.toISOString()} (check this machine's clock)`,
    );
  }
  return {
    source: source.name,
    issuer: crl.issuer,
    nextUpdate: crl.nextUpdate,
    revoked: crl.entries.length,
    der,
  };
}

/**
 * One PEM file with the CRL of every CA a relying party trusts: the portal's first, then each
 * other file in the order given. Tomcat (TAK Server's web connectors) reads every CRL of the one
 * file it is given; a CA whose CRL is missing or expired gets every client refused. Bad input
 * throws a `CrlBundleError` before anything is returned, so a caller writes all or nothing.
 */
export function buildCrlBundle(options: {
  portal: readonly CrlSource[];
  also: readonly CrlSource[];
  now: Date;
}): CrlBundle {
  const crls = [...options.portal, ...options.also].flatMap((source) =>
    dersOf(source).map((der) => parse(source, der, options.now)),
  );
  const seen = new Set<string>();
  const unique = crls.filter((crl) => {
    const key = crl.der.toString('base64');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    pem: unique.map((crl) => encodePem(PEM_CRL_LABEL, crl.der)).join(''),
    crls: unique.map(({ source, issuer, nextUpdate, revoked }) => ({
      source,
      issuer,
      nextUpdate,
      revoked,
    })),
  };
}
