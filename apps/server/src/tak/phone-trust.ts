import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { decodePemBlocks } from '../ca/pem.js';

/**
 * Whether a phone trusts the TAK enrollment face's certificate by itself, so that the QR code
 * alone enrolls (docs/tak.md#one-scan-enrollment-the-tak-enrollment-face): ATAK checks port 8446 against its own trust store and, failing
 * that, Android's system store, with host-name verification.
 */

/** A root (or a CA ATAK holds as an anchor) a phone trusts without any import. */
export interface PhoneRoot {
  /** What it is called (Mozilla's list's name). */
  readonly name: string;
  /** The common name of its subject, when it is not `name`. */
  readonly commonName?: string;
  /** SHA-256 of the certificate (DER), lowercase hex without colons. */
  readonly sha256: string;
  /**
   * Its subject key identifier, lowercase hex: the authority key identifier of every certificate
   * it signed, so that a chain that leaves the root out (as servers send it) is recognised.
   */
  readonly keyId: string;
}

/**
 * ATAK's own anchors: the certificates `CertificateManager.initialize` adds from its assets
 * (ATAK-CIV, github.com/deptofdefense/AndroidTacticalAssaultKit-CIV at 889eee29,
 * `takkernel/engine/src/main/assets/certs/*.crt`, read in
 * `takkernel/engine/src/main/java/com/atakmap/net/CertificateManager.java`): the DoD roots and
 * software CAs, DigiCert's Global Root CA and High Assurance EV root, and ISRG Root X1.
 * Fingerprints and key identifiers computed with `openssl x509 -fingerprint -sha256` and
 * `-ext subjectKeyIdentifier` from those files (the DoD CAs are in no system store).
 */
const ATAK_BUNDLED_ROOTS: readonly PhoneRoot[] = [
  {
    name: 'DoD Root CA 3',
    sha256: 'b107b33f453e5510f68e513110c6f6944bacc263df0137f821c1b3c2f8f863d2',
    keyId: '6c8a94a277b180721d817a16aaf2dcce66ee45c0',
  },
  {
    name: 'DoD Root CA 5',
    sha256: '1f4ede9dc2a241f6521bf518424acd49ebe84420e69daf5bac57af1f8ee294a9',
    keyId: '86c01542fb7176dc3e2d115b21104435cac1dc14',
  },
  {
    name: 'DOD SW CA-61',
    sha256: '0a6fa44b49c3ae713140794e299802489a2c23cbea15969fde84e385dbfd4857',
    keyId: 'a785f2288128689021a9574cf7ec91d01d4e61ff',
  },
  {
    name: 'DOD SW CA-54',
    sha256: '981acf6afc28eeda876cbf3fc126c16d96e0dcdea82ede41c9d37ded01672879',
    keyId: 'b0b728bf2c04898a7426afaa138c0210558179b1',
  },
  {
    name: 'DOD ID SW CA-38',
    sha256: '59fc8d390e6f92ae9ea86179ca5b9a4ae04f9b2b346f10ccc87f23aadef15207',
    keyId: '8ec5b9ccfcce8e53b42acee8112acf9b296c67ca',
  },
  {
    name: 'DigiCert Global Root CA',
    sha256: '4348a0e9444c78cb265e058d5e8944b4d84f9662bd26db257f8934a443c70161',
    keyId: '03de503556d14cbb66f0a3e21b1bc397b23dd155',
  },
  {
    name: 'DigiCert High Assurance EV Root CA',
    sha256: '7431e5f4c3c1ce4690774f0b61e05440883ba9a01ed00ba6abd7806ed3b118cf',
    keyId: 'b13ec36903f8bf4701d498261a0802ef63642bc3',
  },
  {
    name: 'ISRG Root X1',
    sha256: '96bcec06264976f37460779acf28c5a7cfe8a3c0aae11a8ffcee05c0bddf08c6',
    keyId: '79b459e67bb6e5e40173800888c81a58f6e99b6e',
  },
];

/**
 * Public roots of Android's system store that issue TLS certificates to anyone (Let's Encrypt,
 * DigiCert, Amazon, Google Trust Services, GlobalSign, Sectigo/ZeroSSL, GoDaddy, Microsoft,
 * SSL.com, Entrust, Certum), which ATAK's trust manager falls back to. Computed as above from
 * Debian's ca-certificates (Mozilla's list, `/usr/share/ca-certificates/mozilla/*.crt`); the test
 * recomputes each from there. ISRG Root X2 is in Android's store from Android 14 only.
 */
const SYSTEM_ROOTS: readonly PhoneRoot[] = [
  {
    name: 'ISRG Root X2',
    sha256: '69729b8e15a86efc177a57afb7171dfc64add28c2fca8cf1507e34453ccb1470',
    keyId: '7c4296aede4b483bfa92f89e8ccf6d8ba9723795',
  },
  {
    name: 'DigiCert Global Root G2',
    sha256: 'cb3ccbb76031e5e0138f8dd39a23f9de47ffc35e43c1144cea27d46a5ab1cb5f',
    keyId: '4e2254201895e6e36ee60ffafab912ed06178f39',
  },
  {
    name: 'DigiCert Global Root G3',
    sha256: '31ad6648f8104138c738f39ea4320133393e3a18cc02296ef97c2ac9ef6731d0',
    keyId: 'b3db48a4f9a1c5d8ae3641cc1163696229bc4bc6',
  },
  {
    name: 'DigiCert TLS RSA4096 Root G5',
    sha256: '371a00dc0533b3721a7eeb40e8419e70799d2b0a0f2c1d80693165f7cec4ad75',
    keyId: '51331ced3640af17d325cd6968f2af4e233eb341',
  },
  {
    name: 'DigiCert TLS ECC P384 Root G5',
    sha256: '018e13f0772532cf809bd1b17281867283fc48c6e13be9c69812854a490c1b05',
    keyId: 'c151455059ab3ee72c5afa2022120780887c116a',
  },
  {
    name: 'Amazon Root CA 1',
    sha256: '8ecde6884f3d87b1125ba31ac3fcb13d7016de7f57cc904fe1cb97c6ae98196e',
    keyId: '8418cc8534ecbc0c94942e08599cc7b2104e0a08',
  },
  {
    name: 'Amazon Root CA 2',
    sha256: '1ba5b2aa8c65401a82960118f80bec4f62304d83cec4713a19c39c011ea46db4',
    keyId: 'b00cf04c30f405580248fd33e552af4b84e36652',
  },
  {
    name: 'Amazon Root CA 3',
    sha256: '18ce6cfe7bf14e60b2e347b8dfe868cb31d02ebb3ada271569f50343b46db3a4',
    keyId: 'abb6dbd7069e37ac3086079170c79cc419b178c0',
  },
  {
    name: 'Amazon Root CA 4',
    sha256: 'e35d28419ed02025cfa69038cd623962458da5c695fbdea3c22b0bfb25897092',
    keyId: 'd3ecc73a656ecce1da769a56fb9cf3866d57e581',
  },
  {
    name: 'GTS Root R1',
    sha256: 'd947432abde7b7fa90fc2e6b59101b1280e0e1c7e4e40fa3c6887fff57a7f4cf',
    keyId: 'e4af2b26711a2b4827852f52662ceff08913713e',
  },
  {
    name: 'GTS Root R2',
    sha256: '8d25cd97229dbf70356bda4eb3cc734031e24cf00fafcfd32dc76eb5841c7ea8',
    keyId: 'bbffca8e239f4f99cadbe268a6a51527171ed90e',
  },
  {
    name: 'GTS Root R3',
    sha256: '34d8a73ee208d9bcdb0d956520934b4e40e69482596e8b6f73c8426b010a6f48',
    keyId: 'c1f126baa02dae8581cfd3f12a12bdb80a67fdbc',
  },
  {
    name: 'GTS Root R4',
    sha256: '349dfa4058c5e263123b398ae795573c4e1313c83fe68f93556cd5e8031b3c7d',
    keyId: '804cd6eb74ff4936a3d5d8fcb53ec56af0941d8c',
  },
  {
    name: 'GlobalSign Root CA - R3',
    commonName: 'GlobalSign',
    sha256: 'cbb522d7b7f127ad6a0113865bdf1cd4102e7d0759af635a7cf4720dc963c53b',
    keyId: '8ff04b7fa82e4524ae4d50fa639a8bdee2dd1bbc',
  },
  {
    name: 'GlobalSign Root CA - R6',
    commonName: 'GlobalSign',
    sha256: '2cabeafe37d06ca22aba7391c0033d25982952c453647349763a3ab5ad6ccf69',
    keyId: 'ae6c05a39313e2a2e7e2d71cd6c7f07fc86753a0',
  },
  {
    name: 'GlobalSign ECC Root CA - R4',
    commonName: 'GlobalSign',
    sha256: 'b085d70b964f191a73e4af0d54ae7a0e07aafdaf9b71dd0862138ab7325a24a2',
    keyId: '54b07bad45b8e2407ffb0a6efbbe33c93ca384d5',
  },
  {
    name: 'GlobalSign Root R46',
    sha256: '4fa3126d8d3a11d1c4855a4f807cbad6cf919d3a5a88b03bea2c6372d93c40c9',
    keyId: '035cab738187a8ccb0a6d594e2369649ff05992c',
  },
  {
    name: 'GlobalSign Root E46',
    sha256: 'cbb9c44d84b8043e1050ea31a69f514955d7bfd2e2c6b49301019ad61d9f5058',
    keyId: '310a908fb6c69dd2444b80b5a2e61fb1124f1b95',
  },
  {
    name: 'USERTrust RSA Certification Authority',
    sha256: 'e793c9b02fd8aa13e21c31228accb08119643b749c898964b1746d46c3d4cbd2',
    keyId: '5379bf5aaa2b4acf5480e1d89bc09df2b20366cb',
  },
  {
    name: 'USERTrust ECC Certification Authority',
    sha256: '4ff460d54b9c86dabfbcfc5712e0400d2bed3fbc4d4fbdaa86e06adcd2a9ad7a',
    keyId: '3ae10986d4cf19c29676744976dce035c663639a',
  },
  {
    name: 'Sectigo Public Server Authentication Root R46',
    sha256: '7bb647a62aeeac88bf257aa522d01ffea395e0ab45c73f93f65654ec38f25a06',
    keyId: '5673586495f9921ab0122a046279a14015882149',
  },
  {
    name: 'Sectigo Public Server Authentication Root E46',
    sha256: 'c90f26f0fb1b4018b22227519b5ca2b53e2ca5b3be5cf18efe1bef47380c5383',
    keyId: 'd122da4c59f14b5f2638aa9dd6eeeb0dc3fba961',
  },
  {
    name: 'Go Daddy Root Certificate Authority - G2',
    sha256: '45140b3247eb9cc8c5b4f0d7b53091f73292089e6e5a63e2749dd3aca9198eda',
    keyId: '3a9a8507106728b6eff6bd05416e20c194da0fde',
  },
  {
    name: 'Starfield Root Certificate Authority - G2',
    sha256: '2ce1cb0bf9d2f9e102993fbe215152c3b2dd0cabde1c68e5319b839154dbb7f5',
    keyId: '7c0c321fa7d9307fc47d68a362a8a1ceab075b27',
  },
  {
    name: 'Microsoft RSA Root Certificate Authority 2017',
    sha256: 'c741f70f4b2a8d88bf2e71c14122ef53ef10eba0cfa5e64cfa20f418853073e0',
    keyId: '09cb597f86b2708f1ac339e3c0d9e9bfbb4db223',
  },
  {
    name: 'Microsoft ECC Root Certificate Authority 2017',
    sha256: '358df39d764af9e1b766e9c972df352ee15cfac227af6ad1d70e8e4a6edcba02',
    keyId: 'c8cb997270520cf8e6beb20457292acf4210ed35',
  },
  {
    name: 'SSL.com Root Certification Authority RSA',
    sha256: '85666a562ee0be5ce925c1d8890a6f76a87ec16d4d7d5f29ea7419cf20123b69',
    keyId: 'dd040907a2f57a7d5253129295ee3880250da659',
  },
  {
    name: 'SSL.com Root Certification Authority ECC',
    sha256: '3417bb06cc6007da1b961c920b8ab4ce3fad820e4aa30b9acbc4a74ebdcebc65',
    keyId: '82d1857330e73504d38e0292fbe5a4d1c421e8cd',
  },
  {
    name: 'Entrust Root Certification Authority - G2',
    sha256: '43df5774b03e7fef5fe40d931a7bedf1bb2e6b42738c4e6d3841103d3aa7f339',
    keyId: '6a72267ad01eef7de73b6951d46c8d9f901266ab',
  },
  {
    name: 'Certum Trusted Network CA',
    sha256: '5c58468d55f58e497e743982d2b50010b6d165374acf83a7d4a32db768c4408e',
    keyId: '0876cdcb07ff24f6c5cdedbb90bce284374675f7',
  },
];

/** Every root a phone with ATAK trusts by itself: ATAK's own, then the system store's. */
export const PHONE_ROOTS: readonly PhoneRoot[] = [...ATAK_BUNDLED_ROOTS, ...SYSTEM_ROOTS];

/** Why phones do not trust the certificate by themselves. */
export type PhoneDistrustReason =
  'no-certificate' | 'wrong-host' | 'expired' | 'not-a-chain' | 'unknown-root';

export type PhoneTrust =
  | { trusted: true; root: string }
  | {
      trusted: false;
      reason: PhoneDistrustReason;
      /** For `unknown-root`: the common name of the issuer the chain stops at. */
      chainEnd?: string;
    };

function fingerprint(certificate: X509Certificate): string {
  return certificate.fingerprint256.replaceAll(':', '').toLowerCase();
}

/** The key identifier in a certificate's authority key identifier, lowercase hex. */
function authorityKeyId(certificate: X509Certificate): string | undefined {
  return new x509.X509Certificate(certificate.raw)
    .getExtension(x509.AuthorityKeyIdentifierExtension)
    ?.keyId?.toLowerCase();
}

function commonName(name: string): string {
  return /^CN=(.*)$/m.exec(name)?.[1] ?? name.split('\n').join(', ');
}

/** The root among `roots` that `certificate` is, or that issued it (by name and key id). */
function rootOf(certificate: X509Certificate, roots: readonly PhoneRoot[]): PhoneRoot | undefined {
  const sha256 = fingerprint(certificate);
  const itself = roots.find((root) => root.sha256 === sha256);
  if (itself !== undefined) return itself;
  const keyId = authorityKeyId(certificate);
  const issuer = commonName(certificate.issuer);
  return roots.find((root) => root.keyId === keyId && (root.commonName ?? root.name) === issuer);
}

/**
 * Whether a phone trusts `chainPem` (leaf first, then its CAs, as a TLS server sends them) for
 * `host` at `now` by itself: the leaf names the host and is in date, each certificate is signed
 * by the next, and the chain reaches one of `roots`: a certificate that is one (by fingerprint),
 * or one that names one as its issuer (common name and authority key identifier, for the chains
 * that leave the root out). The root's own signature is not checked here: the portal only
 * predicts what the phone will decide about its own configured certificate.
 */
export function phoneTrustOf(
  chainPem: string,
  options: { host: string; now: Date; roots?: readonly PhoneRoot[] },
): PhoneTrust {
  const roots = options.roots ?? PHONE_ROOTS;
  const chain = decodePemBlocks(chainPem, 'CERTIFICATE').map((der) => new X509Certificate(der));
  const leaf = chain[0];
  if (leaf === undefined) return { trusted: false, reason: 'no-certificate' };
  if (leaf.checkHost(options.host, { subject: 'never' }) === undefined) {
    return { trusted: false, reason: 'wrong-host' };
  }
  const now = options.now.getTime();
  if (now < Date.parse(leaf.validFrom) || now > Date.parse(leaf.validTo)) {
    return { trusted: false, reason: 'expired' };
  }
  for (let index = 0; ; index++) {
    const certificate = chain[index];
    if (certificate === undefined) return { trusted: false, reason: 'no-certificate' };
    const root = rootOf(certificate, roots);
    if (root !== undefined) return { trusted: true, root: root.name };
    const next = chain[index + 1];
    if (next === undefined || certificate.issuer === certificate.subject) {
      return { trusted: false, reason: 'unknown-root', chainEnd: commonName(certificate.issuer) };
    }
    if (!certificate.checkIssued(next) || !certificate.verify(next.publicKey)) {
      return { trusted: false, reason: 'not-a-chain' };
    }
  }
}
