import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A TAK client as the test's own independent implementation: requests made by hand the way
 * ATAK, the iOS clients and node-tak send them (docs/tak.md), keys and CSRs made by the openssl
 * binary, never by the portal's code.
 */

export interface FaceResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface FaceTarget {
  port: number;
  /** The name the face's certificate carries (`TAK_HOST`): SNI and the host-name check. */
  servername: string;
  /** The portal's CA chain (the trust package's truststore, in PEM). */
  ca: string;
}

export interface FaceRequest {
  method?: 'GET' | 'POST';
  /** user name and password for `Authorization: Basic`; none when absent. */
  basic?: [string, string];
  headers?: Record<string, string>;
  body?: string;
}

/** One request to the enrollment face over real TLS on 127.0.0.1, on a fresh connection. */
export function callFace(
  target: FaceTarget,
  urlPath: string,
  request: FaceRequest = {},
): Promise<FaceResponse> {
  const headers: Record<string, string> = {
    host: `${target.servername}:${target.port}`,
    ...request.headers,
  };
  if (request.basic !== undefined) {
    headers.authorization = `Basic ${Buffer.from(request.basic.join(':'), 'utf8').toString('base64')}`;
  }
  const payload = request.body === undefined ? undefined : Buffer.from(request.body, 'latin1');
  if (payload !== undefined) headers['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      {
        host: '127.0.0.1',
        port: target.port,
        servername: target.servername,
        path: urlPath,
        method: request.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers,
        ca: target.ca,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            text: body.toString('utf8'),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

export interface DeviceKey {
  /** The private key, PEM (it never leaves the "device"). */
  keyPem: string;
  /** The PKCS#10 request, PEM with its header lines. */
  csrPem: string;
}

export interface CsrOptions {
  /** The subject as openssl's `-subj` takes it, in the order the client writes it. */
  subject: string;
  /** `rsa:2048` (default), `rsa:4096` (ATAK), `rsa:1024` (too weak), `ec` (P-256). */
  key?: 'rsa:1024' | 'rsa:2048' | 'rsa:4096' | 'ec';
  /** The request's own signature: ATAK signs with SHA-1, node-tak with SHA-256. */
  digest?: 'sha1' | 'sha256';
}

/** A key and a CSR made by the openssl binary. */
export async function opensslCsr(options: CsrOptions): Promise<DeviceKey> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tak-device-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const csrFile = path.join(dir, 'csr.pem');
    const key = options.key ?? 'rsa:2048';
    const newKey =
      key === 'ec'
        ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']
        : ['-newkey', key];
    await run('openssl', [
      'req',
      '-new',
      ...newKey,
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      csrFile,
      '-subj',
      options.subject,
      `-${options.digest ?? 'sha256'}`,
    ]);
    return { keyPem: await readFile(keyFile, 'utf8'), csrPem: await readFile(csrFile, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The base64 lines of a PEM block, without its header lines. */
export function pemLines(pem: string): string[] {
  return pem
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('-----'));
}

/** The CSR body forms the clients send (docs/tak.md). */
export const CSR_BODIES = {
  /** ATAK 4.x: PEM with the header lines cut out, a newline before, two after. */
  atak: (pem: string) => `\n${pemLines(pem).join('\n')}\n\n`,
  /** node-tak: the whole PEM with its headers, no newline at the end. */
  pem: (pem: string) => pem.trim(),
  /** TAKAware / TAK Tracker (iOS): the DER as one line of base64. */
  bareBase64: (pem: string) => pemLines(pem).join(''),
  /** goatak: PEM minus the headers, 64-column lines, a newline at the end. */
  lines64: (pem: string) => `${pemLines(pem).join('\n')}\n`,
} as const;

/** `base64 in lines of 64 joined by \n, no header, no trailing newline` → DER. */
export function derOfLines(value: string): Buffer {
  if (!/^([A-Za-z0-9+/]{64}\n)*[A-Za-z0-9+/=]{1,64}$/.test(value)) {
    throw new Error(`not base64 in lines of 64: ${JSON.stringify(value.slice(0, 80))}`);
  }
  return Buffer.from(value.replaceAll('\n', ''), 'base64');
}

/** Runs openssl with `args`, feeding `input`; its standard output. */
export async function openssl(args: string[], input?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('openssl', args, { encoding: 'buffer' }, (error, stdout, stderr) => {
      if (error !== null) {
        reject(new Error(`openssl ${args.join(' ')}: ${stderr.toString()}`));
        return;
      }
      resolve(stdout.toString('utf8'));
    });
    child.stdin?.end(input);
  });
}
