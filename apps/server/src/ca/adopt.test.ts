import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAdoption, type AdoptionInput } from './adopt.js';
import { CertificateAuthority, certificatesIn } from './authority.js';
import { writeCaFiles } from './ca-files.js';
import {
  makeTempDir,
  openssl,
  removeTempDir,
  rsaCaCertificate,
  runOpenssl,
  selfSignedCertificate,
} from './openssl-cli.testing.js';
import { makeTakCa, makeTakCert, TAK_CAPASS, type TakCaFiles } from './tak-ca.testing.js';

// `ca adopt`'s checks and the hierarchy it leaves, on CAs made the way TAK Server's certificate
// scripts make theirs (tak-ca.testing.ts) and on a few made wrong on purpose with OpenSSL.

let dir: string;
let root: TakCaFiles;
let intermediate: TakCaFiles;
const NOW = new Date();
const YEAR_MS = 365 * 86_400_000;

beforeAll(async () => {
  dir = await makeTempDir();
  [root, intermediate] = await Promise.all([
    makeTakCa(path.join(dir, 'tak-root'), { name: 'UnitRootCA' }),
    makeTakCa(path.join(dir, 'tak-intermediate'), {
      name: 'UnitRootCA2',
      intermediate: 'UnitIntermediateCA',
    }),
  ]);
}, 120_000);

afterAll(async () => {
  await removeTempDir(dir);
});

const text = (file: string) => readFile(file, 'utf8');

async function input(
  ca: TakCaFiles,
  overrides: Partial<AdoptionInput> = {},
): Promise<AdoptionInput> {
  return {
    certificatePem: await text(ca.caPem),
    keyPem: await text(ca.caKey),
    passphrase: TAK_CAPASS,
    issueDirectly: false,
    storePassphrase: undefined,
    organization: 'portal.example.org',
    now: new Date(),
    ...overrides,
  };
}

/** The adopted material written to a new directory and loaded as the portal loads its CA. */
async function load(
  material: Awaited<ReturnType<typeof prepareAdoption>>['material'],
  passphrase?: string,
) {
  const caDir = path.join(await makeTempDir(), 'ca');
  await writeCaFiles(caDir, material);
  return CertificateAuthority.loadOrCreate({
    dir: caDir,
    publicBaseUrl: 'http://portal.example.org',
    ...(passphrase === undefined ? {} : { passphrase }),
  });
}

/** `openssl verify` of a member's certificate with only `trusted` as the trust anchor. */
async function verifyMember(ca: CertificateAuthority, trusted: string) {
  const issued = await ca.issueMemberCertificate({ callsign: 'Heron5', validityDays: 365 });
  const leaf = path.join(dir, `leaf-${issued.serial}.pem`);
  const untrusted = path.join(dir, `untrusted-${issued.serial}.pem`);
  await writeFile(leaf, issued.certificatePem);
  await writeFile(untrusted, issued.chainPem.slice(0, -1).join('') || issued.chainPem.join(''));
  return runOpenssl([
    'verify',
    '-x509_strict',
    '-purpose',
    'sslclient',
    '-CAfile',
    trusted,
    '-untrusted',
    untrusted,
    leaf,
  ]);
}

describe('adopting a TAK Server root CA (makeRootCa.sh)', () => {
  it('makes its own issuing CA under the root by default; members verify against the TAK root alone', async () => {
    const adoption = await prepareAdoption(await input(root));
    expect(adoption.adopted.root).toBe(true);
    expect(adoption.issuesDirectly).toBe(false);
    expect(adoption.hierarchy).toEqual([
      'O=TAK, CN=Callsign Portal Issuing CA',
      'C=US, ST=Uusimaa, L=Helsinki, O=TAK, OU=Unit, CN=UnitRootCA',
    ]);
    const ca = await load(adoption.material);
    const der = (pem: string) => Buffer.from(certificatesIn(pem)[0]?.rawData ?? new ArrayBuffer(0));
    expect(der(ca.topCertificatePem)).toEqual(der(await text(root.rootPem)));
    expect(der(ca.rootCertificatePem)).toEqual(der(await text(root.rootPem)));
    expect(certificatesIn(ca.chainPem).map((c) => c.subject)).toEqual(adoption.hierarchy);
    const verified = await verifyMember(ca, root.rootPem);
    expect(verified.stderr + verified.stdout).toMatch(/: OK/);
    // The CRL is signed by the issuing CA the portal made; OpenSSL checks it under the TAK root.
    const crl = await ca.createCrl({
      revoked: [],
      crlNumber: 1n,
      nextUpdate: new Date(Date.now() + 86_400_000),
    });
    const crlFile = path.join(dir, 'adopted-crl.pem');
    await writeFile(crlFile, crl.pem);
    const chainFile = path.join(dir, 'adopted-chain.pem');
    await writeFile(chainFile, ca.chainPem);
    expect(await openssl(['crl', '-in', crlFile, '-noout', '-CAfile', chainFile])).toMatch(
      /verify OK/,
    );
  });

  it('with --issue-directly the root signs members itself, and /ca/ca.pem is the root alone', async () => {
    const adoption = await prepareAdoption(await input(root, { issueDirectly: true }));
    expect(adoption.issuesDirectly).toBe(true);
    const ca = await load(adoption.material);
    expect(certificatesIn(ca.chainPem)).toHaveLength(1);
    expect(ca.issuesFromRoot).toBe(true);
    expect(ca.intermediatesPem).toEqual([]);
    const verified = await verifyMember(ca, root.rootPem);
    expect(verified.stderr + verified.stdout).toMatch(/: OK/);
  });

  it('keeps the adopted keys encrypted with PORTAL_CA_PASSPHRASE, not with the TAK passphrase', async () => {
    const adoption = await prepareAdoption(await input(root, { storePassphrase: 'portal pass' }));
    expect(adoption.material.rootKey).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    expect(adoption.material.issuingKey).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    await expect(load(adoption.material, 'portal pass')).resolves.toBeInstanceOf(
      CertificateAuthority,
    );
    await expect(load(adoption.material, TAK_CAPASS)).rejects.toThrow(/wrong passphrase/);
  });
});

describe('adopting a TAK Server intermediate (makeCert.sh ca, files moved)', () => {
  it('issues members directly from the intermediate, chain to the root from ca.pem itself', async () => {
    const adoption = await prepareAdoption(await input(intermediate));
    expect(adoption.adopted.root).toBe(false);
    expect(adoption.issuesDirectly).toBe(true);
    expect(adoption.hierarchy.map((subject) => /CN=(\w+)/.exec(subject)?.[1])).toEqual([
      'UnitIntermediateCA',
      'UnitRootCA2',
    ]);
    const ca = await load(adoption.material);
    expect(certificatesIn(ca.chainPem).map((c) => c.subject)).toEqual(adoption.hierarchy);
    expect(certificatesIn(ca.intermediatesPem.join(''))).toHaveLength(1);
    const verified = await verifyMember(ca, intermediate.rootPem);
    expect(verified.stderr + verified.stdout).toMatch(/: OK/);
  });

  it('will not load without ca-chain.pem: the adopted intermediate leads to no root', async () => {
    const { material } = await prepareAdoption(await input(intermediate));
    const { chain, ...withoutChain } = material;
    expect(chain).toBeDefined();
    await expect(load(withoutChain)).rejects.toThrow(
      /ca-chain\.pem does not lead from .*CN=UnitIntermediateCA to a self-signed root/,
    );
  });

  it('takes the root from --chain when the certificate file holds the intermediate alone', async () => {
    const [alone] = certificatesIn(await text(intermediate.caPem));
    const certificatePem = alone?.toString('pem') ?? '';
    await expect(prepareAdoption(await input(intermediate, { certificatePem }))).rejects.toThrow(
      /is not self-signed and its issuer \(.*CN=UnitRootCA2\) is not given: give the certificates up to the root with --chain/,
    );
    const adoption = await prepareAdoption(
      await input(intermediate, { certificatePem, chainPem: await text(intermediate.rootPem) }),
    );
    expect(adoption.hierarchy).toHaveLength(2);
  });
});

describe('refusals, each before anything is made', () => {
  it('a key that does not belong to the certificate', async () => {
    await expect(
      prepareAdoption(await input(root, { keyPem: await text(intermediate.caKey) })),
    ).rejects.toThrow(
      /--key does not belong to the certificate .*CN=UnitRootCA \(another key pair\)/,
    );
  });

  it('an encrypted key without its passphrase, or with a wrong one', async () => {
    await expect(prepareAdoption(await input(root, { passphrase: undefined }))).rejects.toThrow(
      '--key is encrypted: give its passphrase in a file with --passphrase-file',
    );
    await expect(prepareAdoption(await input(root, { passphrase: 'wrong' }))).rejects.toThrow(
      '--key cannot be decrypted with the passphrase of --passphrase-file',
    );
  });

  it('a certificate that is not a CA (a TAK client certificate)', async () => {
    const client = await makeTakCert(path.join(dir, 'tak-root'), 'client', 'notaca');
    await expect(
      prepareAdoption(
        await input(root, {
          certificatePem: await text(client.pem),
          keyPem: await text(client.key),
        }),
      ),
    ).rejects.toThrow(
      /the certificate \(.*CN=notaca\) is not a CA: it lacks basicConstraints CA:TRUE/,
    );
  });

  /** A self-signed CA made with OpenSSL, with these keyUsage and basicConstraints. */
  async function selfSigned(
    name: string,
    keyUsage: string,
    options: { basic?: string; rsa?: boolean } = {},
  ) {
    const cert = await selfSignedCertificate(dir, name, {
      days: 3650,
      rsa: options.rsa ?? true,
      extensions: [
        `basicConstraints=${options.basic ?? 'critical,CA:true'}`,
        `keyUsage=critical,${keyUsage}`,
      ],
    });
    return {
      certificatePem: await text(cert),
      keyPem: await text(path.join(dir, `${name}.key`)),
      passphrase: undefined,
    };
  }

  it('a CA whose keyUsage lacks keyCertSign, or cRLSign', async () => {
    await expect(
      prepareAdoption(
        await input(root, await selfSigned('NoCertSign', 'cRLSign,digitalSignature')),
      ),
    ).rejects.toThrow(
      /\(CN=NoCertSign\) may not sign certificates: its keyUsage lacks keyCertSign$/,
    );
    await expect(
      prepareAdoption(await input(root, await selfSigned('NoCrlSign', 'keyCertSign'))),
    ).rejects.toThrow(/\(CN=NoCrlSign\) may not sign CRLs: its keyUsage lacks cRLSign$/);
  });

  it('an expired CA, and one with less than 30 days left', async () => {
    const tenYears = new Date(NOW.getTime() + 11 * YEAR_MS);
    await expect(prepareAdoption(await input(root, { now: tenYears }))).rejects.toThrow(
      /the certificate \(.*CN=UnitRootCA\) expired on \d{4}-\d\d-\d\d$/,
    );
    const [adopted] = certificatesIn(await text(root.caPem));
    const nearEnd = new Date((adopted?.notAfter.getTime() ?? 0) - 10 * 86_400_000);
    await expect(prepareAdoption(await input(root, { now: nearEnd }))).rejects.toThrow(
      /expires on \d{4}-\d\d-\d\d, in less than 30 days: renew it first/,
    );
  });

  it('an EC key, and a root whose pathLenConstraint 0 allows no issuing CA under it', async () => {
    await expect(
      prepareAdoption(
        await input(root, await selfSigned('EcRoot', 'keyCertSign,cRLSign', { rsa: false })),
      ),
    ).rejects.toThrow('--key is an ec key: only an RSA CA key can be adopted');
    const pathLenZero = await selfSigned('PathLenZero', 'keyCertSign,cRLSign', {
      basic: 'critical,CA:true,pathlen:0',
    });
    await expect(prepareAdoption(await input(root, pathLenZero))).rejects.toThrow(
      /allows no CA under it \(pathLenConstraint 0\): adopt it with --issue-directly/,
    );
    await expect(
      prepareAdoption(await input(root, { ...pathLenZero, issueDirectly: true })),
    ).resolves.toMatchObject({ issuesDirectly: true });
  });
});

describe('weak CAs are refused (docs/tak.md, ca adopt), before anything is made', () => {
  /** rsaCaCertificate's CA as the input of `ca adopt`, with its issuer as --chain. */
  async function rsaCa(name: string, options: Parameters<typeof rsaCaCertificate>[2] = {}) {
    const { cert, key } = await rsaCaCertificate(dir, name, options);
    const chainPem =
      options.signedBy === undefined
        ? undefined
        : await text(path.join(dir, `${options.signedBy}.pem`));
    return {
      certificatePem: await text(cert),
      keyPem: await text(key),
      passphrase: undefined,
      chainPem,
    };
  }

  it('an RSA key under 2048 bits (768, 1024)', async () => {
    for (const bits of [768, 1024]) {
      await expect(
        prepareAdoption(await input(root, await rsaCa(`Rsa${bits}`, { bits }))),
      ).rejects.toThrow(
        `the certificate (CN=Rsa${bits}) has a ${bits}-bit RSA key: a CA key needs at least 2048 bits`,
      );
    }
  });

  it('an RSA public exponent other than 65537 (3)', async () => {
    await expect(
      prepareAdoption(await input(root, await rsaCa('Exponent3', { exponent: 3 }))),
    ).rejects.toThrow(
      'the certificate (CN=Exponent3) has an RSA public exponent of 3: only 65537 is accepted',
    );
  });

  it('a root signed with SHA-1, itself or above the adopted CA', async () => {
    await expect(
      prepareAdoption(await input(root, await rsaCa('Sha1Root', { digest: 'sha1' }))),
    ).rejects.toThrow(
      'the certificate (CN=Sha1Root) is signed with SHA-1: a CA signed with SHA-1 or weaker is refused (SHA-256 or stronger)',
    );
    const under = await rsaCa('UnderSha1Root', { signedBy: 'Sha1Root' });
    await expect(prepareAdoption(await input(root, under))).rejects.toThrow(
      'its issuer CN=Sha1Root (CN=Sha1Root) is signed with SHA-1',
    );
  });

  it('an intermediate signed with SHA-1, and a weak key above a strong intermediate', async () => {
    await rsaCa('StrongRoot');
    await expect(
      prepareAdoption(
        await input(
          root,
          await rsaCa('Sha1Intermediate', { digest: 'sha1', signedBy: 'StrongRoot' }),
        ),
      ),
    ).rejects.toThrow('the certificate (CN=Sha1Intermediate) is signed with SHA-1');
    await rsaCa('WeakRoot', { bits: 1024 });
    await expect(
      prepareAdoption(await input(root, await rsaCa('UnderWeakRoot', { signedBy: 'WeakRoot' }))),
    ).rejects.toThrow('its issuer CN=WeakRoot (CN=WeakRoot) has a 1024-bit RSA key');
  });
});
