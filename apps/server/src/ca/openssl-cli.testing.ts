// Test support (no production code imports this): runs the real OpenSSL CLI.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface OpensslResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `openssl args…`, with `input` on its standard input when given; resolves with the exit
 * code instead of rejecting on failure.
 */
export function runOpenssl(
  args: readonly string[],
  input?: string | Buffer,
  cwd?: string,
): Promise<OpensslResult> {
  return new Promise((resolve) => {
    const options = { encoding: 'utf8' as const, ...(cwd === undefined ? {} : { cwd }) };
    const child = execFile('openssl', args, options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/** Runs `openssl args…` and returns stdout + stderr, failing loudly on a non-zero exit. */
export async function openssl(
  args: readonly string[],
  input?: string | Buffer,
  cwd?: string,
): Promise<string> {
  const result = await runOpenssl(args, input, cwd);
  if (result.code !== 0) {
    throw new Error(`openssl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return result.stdout + result.stderr;
}

/** The public key (PEM) in a certificate (PEM), as OpenSSL reads it. */
export function publicKeyOfCertificate(certificatePem: string): Promise<string> {
  return openssl(['x509', '-noout', '-pubkey'], certificatePem);
}

/** The public key (PEM) of a private key (PEM), as OpenSSL derives it. */
export function publicKeyOfPrivateKey(privateKeyPem: string): Promise<string> {
  return openssl(['pkey', '-pubout'], privateKeyPem);
}

/** Writes `content` to a new file and returns its path (for OpenSSL's `-in`, `-CAfile`, ...). */
export type TempFileWriter = (content: string | Buffer, suffix?: string) => Promise<string>;

/**
 * Numbered files (`file-1.pem`, `file-2.der`, ...) in the directory `dir()` names when a file is
 * written: a suite's temporary directory, made in its `beforeAll`.
 */
export function tempFileWriter(dir: () => string): TempFileWriter {
  let count = 0;
  return async (content, suffix = '.pem') => {
    count += 1;
    const file = path.join(dir(), `file-${count}${suffix}`);
    await fs.writeFile(file, content);
    return file;
  };
}

export async function makeTempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'callsign-ca-test-'));
}

export async function removeTempDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await fs.rm(dir, { recursive: true, force: true });
}

/**
 * A throw-away certificate made by the OpenSSL CLI (not by the CA under test), P-256 unless
 * `rsa`: writes `{name}.key` and `{name}.pem` into `dir` and returns the certificate's path.
 * Self-signed, or signed by `signedBy`, the name of another certificate made here; `dnsName` goes
 * into its subjectAltName, and the `-addext` `extensions` are added as given.
 */
export async function selfSignedCertificate(
  dir: string,
  name: string,
  options: {
    subject?: string;
    days?: number;
    serial?: string;
    rsa?: boolean;
    extensions?: string[];
    signedBy?: string;
    dnsName?: string;
  } = {},
): Promise<string> {
  const file = path.join(dir, `${name}.pem`);
  await openssl([
    'req',
    '-x509',
    ...(options.rsa === true
      ? ['-newkey', 'rsa:2048']
      : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']),
    '-nodes',
    '-keyout',
    path.join(dir, `${name}.key`),
    '-out',
    file,
    '-subj',
    options.subject ?? `/CN=${name}`,
    '-days',
    String(options.days ?? 1),
    ...(options.serial === undefined ? [] : ['-set_serial', options.serial]),
    ...(options.extensions ?? []).flatMap((extension) => ['-addext', extension]),
    ...signedByArgs(dir, options.signedBy),
    ...(options.dnsName === undefined ? [] : ['-addext', `subjectAltName=DNS:${options.dnsName}`]),
  ]);
  return file;
}

/** `req -x509`'s arguments for a certificate signed by `signedBy`, one made here in `dir`. */
function signedByArgs(dir: string, signedBy: string | undefined): string[] {
  if (signedBy === undefined) return [];
  return ['-CA', path.join(dir, `${signedBy}.pem`), '-CAkey', path.join(dir, `${signedBy}.key`)];
}

/**
 * A CA (basicConstraints CA:TRUE, keyUsage keyCertSign and cRLSign, 10 years) made by the
 * OpenSSL CLI on an RSA key of `bits` with the public exponent `exponent`, its certificate
 * signed with `digest`: writes `{name}.key` and `{name}.pem` into `dir`. Self-signed, or signed
 * by `signedBy`, another certificate made here.
 */
export async function rsaCaCertificate(
  dir: string,
  name: string,
  options: { bits?: number; exponent?: number; digest?: string; signedBy?: string } = {},
): Promise<{ cert: string; key: string }> {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.pem`);
  const bits = `rsa_keygen_bits:${options.bits ?? 2048}`;
  const exponent = `rsa_keygen_pubexp:${options.exponent ?? 65537}`;
  await openssl([
    'genpkey',
    '-algorithm',
    'RSA',
    '-pkeyopt',
    bits,
    '-pkeyopt',
    exponent,
    '-out',
    key,
  ]);
  await openssl([
    'req',
    '-x509',
    '-key',
    key,
    `-${options.digest ?? 'sha256'}`,
    '-subj',
    `/CN=${name}`,
    '-days',
    '3650',
    '-addext',
    'basicConstraints=critical,CA:true',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    ...signedByArgs(dir, options.signedBy),
    '-out',
    cert,
  ]);
  return { cert, key };
}

/** `keytool -list` of a PKCS#12 file: what Java (and Android's keystore) sees in it. */
export async function keytoolList(file: string, password: string): Promise<string> {
  const { stdout } = await promisify(execFile)('keytool', [
    '-list',
    '-storetype',
    'PKCS12',
    '-keystore',
    file,
    '-storepass',
    password,
  ]);
  return stdout;
}
