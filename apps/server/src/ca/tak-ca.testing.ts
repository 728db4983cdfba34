// Test support (no production code imports this): a CA made the way TAK Server's certificate
// scripts make theirs (TAK-Product-Center/Server, src/takserver-core/scripts/certs:
// cert-metadata.sh, config.cfg, makeRootCa.sh, makeCert.sh), with the same OpenSSL commands,
// config sections, file names and default passphrase, run by the real OpenSSL CLI.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openssl } from './openssl-cli.testing.js';

/** cert-metadata.sh's default CAPASS (and PASS). */
export const TAK_CAPASS = 'atakatak';

/** config.cfg's sections that the scripts use: req, v3_ca, client, server. */
const CONFIG_CFG = `default_crl_days= 730

[ ca ]
	default_ca      = CA_default

[ CA_default ]
	dir             = .
	certs           = $dir
	crl_dir         = $dir/crl
	database        = $dir/crl_index.txt
	default_md      = default

[ req ]
        default_bits           = 2048
        default_keyfile        = ca.pem
        distinguished_name     = req_distinguished_name
        x509_extensions        = v3_ca

[ req_distinguished_name ]
        countryName_min                = 2
        countryName_max                = 2
        commonName_max                 = 64

[ v3_ca ]
basicConstraints=critical,CA:TRUE
keyUsage=critical, cRLSign, keyCertSign

[ client ]
basicConstraints=critical,CA:FALSE
keyUsage=critical, digitalSignature, keyEncipherment
extendedKeyUsage = critical, clientAuth

[ server ]
basicConstraints=critical,CA:FALSE
keyUsage=critical, digitalSignature, keyEncipherment
extendedKeyUsage = critical, clientAuth, serverAuth
`;

/** cert-metadata.sh's SUBJBASE with STATE, CITY and ORGANIZATIONAL_UNIT set, ORGANIZATION=TAK. */
const SUBJBASE = '/C=US/ST=Uusimaa/L=Helsinki/O=TAK/OU=Unit/';

export interface TakCaFiles {
  /** The `files` folder the scripts write into (config.cfg sits beside it, as in certs/). */
  readonly dir: string;
  /** files/ca.pem: the signing CA (after an intermediate: that CA, then the root). */
  readonly caPem: string;
  /** files/ca-do-not-share.key: the signing CA's key, encrypted with TAK_CAPASS. */
  readonly caKey: string;
  /** files/ca.crl: makeRootCa.sh's empty CRL of the root (730 days, config.cfg). */
  readonly rootCrl: string;
  /** files/root-ca.pem: makeRootCa.sh's copy of the root. */
  readonly rootPem: string;
}

/**
 * `./makeRootCa.sh --ca-name NAME` in `certsDir` (certs/files), and with `intermediate`
 * `./makeCert.sh ca INTERMEDIATE` answered "y" (the new CA replaces ca.pem and
 * ca-do-not-share.key, so that later certificates are signed by it).
 */
export async function makeTakCa(
  certsDir: string,
  options: { name: string; intermediate?: string },
): Promise<TakCaFiles> {
  const dir = path.join(certsDir, 'files');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(certsDir, 'config.cfg'), CONFIG_CFG);
  const at = (file: string) => path.join(dir, file);
  const config = path.join(certsDir, 'config.cfg');
  // makeRootCa.sh
  await openssl([
    'req',
    '-new',
    '-sha256',
    '-x509',
    '-days',
    '3652',
    '-extensions',
    'v3_ca',
    '-keyout',
    at('ca-do-not-share.key'),
    '-out',
    at('ca.pem'),
    '-passout',
    `pass:${TAK_CAPASS}`,
    '-config',
    config,
    '-subj',
    `${SUBJBASE}CN=${options.name}`,
  ]);
  await copyFile(at('ca.pem'), at('root-ca.pem'));
  await copyFile(at('ca-do-not-share.key'), at('root-ca-do-not-share.key'));
  // "create empty crl": run in files/, as the script does (config.cfg's dir = .).
  await writeFile(at('crl_index.txt'), '');
  await writeFile(at('crl_index.txt.attr'), '');
  await openssl(
    [
      'ca',
      '-config',
      config,
      '-gencrl',
      '-keyfile',
      'ca-do-not-share.key',
      '-key',
      TAK_CAPASS,
      '-cert',
      'ca.pem',
      '-out',
      'ca.crl',
    ],
    undefined,
    dir,
  );
  if (options.intermediate !== undefined) {
    const name = options.intermediate;
    await signWithTakCa(certsDir, name, 'v3_ca', TAK_CAPASS);
    // makeCert.sh: "now add the chain", then the move it offers.
    await writeFile(
      at(`${name}.pem`),
      (await readFile(at(`${name}.pem`), 'utf8')) + (await readFile(at('ca.pem'), 'utf8')),
    );
    await copyFile(at(`${name}.pem`), at('ca.pem'));
    await copyFile(at(`${name}.key`), at('ca-do-not-share.key'));
  }
  return {
    dir,
    caPem: at('ca.pem'),
    caKey: at('ca-do-not-share.key'),
    rootPem: at('root-ca.pem'),
    rootCrl: at('ca.crl'),
  };
}

/**
 * `./makeCert.sh server NAME` (or client): a key encrypted with TAK_CAPASS (PASS defaults to
 * CAPASS) and its certificate from the CA in ca.pem, as files/NAME.key and files/NAME.pem (with
 * ca.pem appended), and files/NAME.p12.
 */
export async function makeTakCert(
  certsDir: string,
  kind: 'server' | 'client',
  name: string,
): Promise<{ pem: string; key: string; p12: string }> {
  const dir = path.join(certsDir, 'files');
  const at = (file: string) => path.join(dir, file);
  let extensions = path.join(certsDir, 'config.cfg');
  if (kind === 'server') {
    extensions = at(`config-${name}.cfg`);
    await writeFile(
      extensions,
      `${CONFIG_CFG}\nsubjectAltName = @alt_names\n\n[alt_names]\nDNS.1 = ${name}\n`,
    );
  }
  await signWithTakCa(certsDir, name, kind, TAK_CAPASS, extensions);
  await writeFile(
    at(`${name}.pem`),
    (await readFile(at(`${name}.pem`), 'utf8')) + (await readFile(at('ca.pem'), 'utf8')),
  );
  await openssl([
    'pkcs12',
    '-export',
    '-in',
    at(`${name}.pem`),
    '-inkey',
    at(`${name}.key`),
    '-out',
    at(`${name}.p12`),
    '-name',
    name,
    '-CAfile',
    at('ca.pem'),
    '-passin',
    `pass:${TAK_CAPASS}`,
    '-passout',
    `pass:${TAK_CAPASS}`,
  ]);
  return { pem: at(`${name}.pem`), key: at(`${name}.key`), p12: at(`${name}.p12`) };
}

/** makeCert.sh's two OpenSSL commands: a new key and CSR, signed by ca.pem with `extension`. */
async function signWithTakCa(
  certsDir: string,
  name: string,
  extension: string,
  pass: string,
  extfile = path.join(certsDir, 'config.cfg'),
): Promise<void> {
  const at = (file: string) => path.join(certsDir, 'files', file);
  await openssl([
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-sha256',
    '-keyout',
    at(`${name}.key`),
    '-passout',
    `pass:${pass}`,
    '-out',
    at(`${name}.csr`),
    '-subj',
    `${SUBJBASE}CN=${name}`,
  ]);
  const serial = (await openssl(['rand', '-hex', '8'])).trim();
  await openssl([
    'x509',
    '-sha256',
    '-req',
    '-days',
    '730',
    '-in',
    at(`${name}.csr`),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca-do-not-share.key'),
    '-out',
    at(`${name}.pem`),
    '-set_serial',
    `0x${serial}`,
    '-passin',
    `pass:${pass}`,
    '-extensions',
    extension,
    '-extfile',
    extfile,
  ]);
}

/**
 * makeRootCa.sh's truststore-root.jks (keytool -import of the root, alias the CA's name): what
 * TAK Server's <tls truststoreFile> points at. Needs a JDK's keytool.
 */
export async function makeTakRootTruststore(ca: TakCaFiles, name: string): Promise<string> {
  const file = path.join(ca.dir, 'truststore-root.jks');
  await keytool([
    '-import',
    '-trustcacerts',
    '-file',
    ca.rootPem,
    '-keystore',
    file,
    '-alias',
    name,
    '-storepass',
    TAK_CAPASS,
    '-noprompt',
  ]);
  return file;
}

async function keytool(args: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile('keytool', args, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`keytool ${args.join(' ')}: ${stdout}${stderr}`));
    });
  });
}
