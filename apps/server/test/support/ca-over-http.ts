import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run, type RunResult } from './processes.js';

/** `curl http://…` as a person or a relying party runs it: status and redirect read out. */
export async function curlPlainHttp(
  url: string,
  extra: string[] = [],
): Promise<RunResult & { status: number; redirect: string; body: string }> {
  const result = await run('curl', [
    '--silent',
    '--show-error',
    '--write-out',
    '\n%{http_code} %{redirect_url}',
    ...extra,
    url,
  ]);
  const cut = result.stdout.lastIndexOf('\n');
  const [status = '', redirect = ''] = result.stdout.slice(cut + 1).split(' ');
  return { ...result, status: Number(status), redirect, body: result.stdout.slice(0, cut) };
}

/** The revocation and issuer URLs a certificate carries, as `openssl x509 -text` shows them. */
export interface RevocationUrls {
  crl: string | undefined;
  ocsp: string | undefined;
  caIssuers: string | undefined;
}

export async function revocationUrlsOf(certificatePem: string): Promise<RevocationUrls> {
  const text = await run('openssl', ['x509', '-noout', '-text'], { input: certificatePem });
  if (text.code !== 0) throw new Error(`openssl x509 failed: ${text.stderr}`);
  return {
    crl: /CRL Distribution Points:\s+Full Name:\s+URI:(\S+)/.exec(text.stdout)?.[1],
    ocsp: /OCSP - URI:(\S+)/.exec(text.stdout)?.[1],
    caIssuers: /CA Issuers - URI:(\S+)/.exec(text.stdout)?.[1],
  };
}

export interface OcspQuery {
  /** The OCSP URL as written in the certificate. */
  url: string;
  /** Where that URL's host is reached (the name may not resolve outside curl, e.g. *.localhost). */
  connectTo: string;
  certificatePem: string;
  issuerPem: string;
  /** The CA chain the answer's signature is verified against. */
  chainFile: string;
  workDir: string;
}

/**
 * `openssl ocsp -url http://…` as a relying party runs it: a POSTed request, the answer verified
 * against the chain. The URL's host is kept in the Host header.
 */
export async function askOcspOverHttp(query: OcspQuery): Promise<RunResult> {
  const url = new URL(query.url);
  if (url.protocol !== 'http:') throw new Error(`not a plain-http OCSP URL: ${query.url}`);
  const leafFile = path.join(query.workDir, 'ocsp-leaf.pem');
  const issuerFile = path.join(query.workDir, 'ocsp-issuer.pem');
  await writeFile(leafFile, query.certificatePem);
  await writeFile(issuerFile, query.issuerPem);
  return run('openssl', [
    'ocsp',
    '-issuer',
    issuerFile,
    '-cert',
    leafFile,
    '-url',
    `http://${query.connectTo}${url.pathname}`,
    '-header',
    `Host=${url.host}`,
    '-CAfile',
    query.chainFile,
  ]);
}
