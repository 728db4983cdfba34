import { BadCsrError } from '../ca/csr.js';
import { buildLegacyPfx } from '../ca/pkcs12-legacy.js';
import { escapeXml } from './xml.js';

/**
 * The documents of the TAK certificate-enrollment protocol (docs/tak.md), byte for byte as the
 * TAK clients read them. Pure: the enrollment face (modules/tak-enroll) decides who gets them.
 */

/** The password of the legacy `signClient` answer: every TAK client opens it with this one. */
export const LEGACY_ENROLLMENT_PASSWORD = 'atakatak';

/** The certificate name of the legacy answer; every other name there is read as a CA. */
export const SIGNED_CERT_ALIAS = 'signedCert';

/** The OU every enrolling client puts into its request (the CN is its user name). */
export const MEMBERS_OU = 'members';

/**
 * `GET tls/config`: which names the client puts into its request besides `CN={user name}`.
 * Exactly this shape: ATAK reads it strictly (no other elements or attributes; `nameEntries`
 * must be there), node-tak wants at least two `nameEntry` (it iterates them as a list), and no
 * CN entry (ATAK would overwrite the user name with it). Values must be ASCII for ATAK: the
 * deployment name is (configuration allows letters, digits, `-` and `_` only).
 */
export function certificateConfigXml(deployment: string): string {
  const entry = (name: string, value: string) =>
    `<nameEntry name="${name}" value="${escapeXml(value)}"/>`;
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<ns2:certificateConfig xmlns="http://bbn.com/marti/xml/config" xmlns:ns2="com.bbn.marti.config">' +
    `<nameEntries>${entry('O', deployment)}${entry('OU', MEMBERS_OU)}</nameEntries>` +
    '</ns2:certificateConfig>'
  );
}

/**
 * Base64 of DER in lines of 64 joined by `\n`, with no header and no newline at the end: the iOS
 * clients wrap each value in PEM lines and refuse any line that is not 64 characters but the last
 * (so neither one long line nor an empty last line).
 */
export function base64Lines(der: Uint8Array): string {
  return (
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? []
  ).join('\n');
}

/** What an enrollment answers: the member's new certificate and the CAs to trust with it. */
export interface TakEnrollmentAnswer {
  /** The signed certificate, DER. */
  signedCert: Uint8Array;
  /** The issuing CA, then the root, then any other CA of the TAK server's chain; DER. */
  cas: readonly Uint8Array[];
}

/** `signClient/v2`, JSON: `{"signedCert": …, "ca0": …, "ca1": …}`. */
export function signClientJson(answer: TakEnrollmentAnswer): string {
  const body: Record<string, string> = { signedCert: base64Lines(answer.signedCert) };
  answer.cas.forEach((ca, index) => {
    body[`ca${index}`] = base64Lines(ca);
  });
  return JSON.stringify(body);
}

/**
 * TAK Server's answer to a password grant on `/oauth/token` (Spring Authorization Server's
 * OAuth2AccessTokenResponse, as TAK Server 5.7's PasswordGrantAuthenticationSuccessHandler writes
 * it: no scope, no refresh token): `{"access_token", "token_type": "Bearer", "expires_in"}`.
 */
export function oauthTokenJson(token: { jwt: string; expiresInSeconds: number }): string {
  return JSON.stringify({
    access_token: token.jwt,
    token_type: 'Bearer',
    expires_in: token.expiresInSeconds,
  });
}

/** `signClient/v2` for `Accept: application/xml`: `<enrollment><signedCert/><ca/>…</enrollment>`. */
export function signClientXml(answer: TakEnrollmentAnswer): string {
  const cas = answer.cas.map((ca) => `<ca>${base64Lines(ca)}</ca>`).join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<enrollment><signedCert>${base64Lines(answer.signedCert)}</signedCert>${cas}</enrollment>`
  );
}

/**
 * The legacy `signClient` answer (ATAK 4.x): a PKCS#12 of certificates only, password
 * `atakatak`, the member's certificate named `signedCert` and the CAs `ca0`, `ca1`, …. Every bag
 * carries its name (ATAK takes each name but `signedCert` as a CA) and is marked trusted (Java's
 * keystore lists it then). Legacy encryption and an HMAC-SHA1 MAC: ATAK's Android keystore
 * refuses PBES2 and SHA-256 MACs.
 */
export function signClientPkcs12(answer: TakEnrollmentAnswer): Promise<Buffer> {
  const bag = (der: Uint8Array, friendlyName: string) => ({
    der: Buffer.from(der),
    attributes: { friendlyName, trustedForAnyPurpose: true },
  });
  return buildLegacyPfx({
    password: LEGACY_ENROLLMENT_PASSWORD,
    certificates: [
      bag(answer.signedCert, SIGNED_CERT_ALIAS),
      ...answer.cas.map((ca, index) => bag(ca, `ca${index}`)),
    ],
  });
}

const ARMOR_LINE = /-----(BEGIN|END) [A-Z0-9 ]+-----/g;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The DER of the request in a `signClient` body, in every form the clients send: PEM with its
 * header lines (node-tak), PEM with the header lines cut out and blank lines around (ATAK),
 * base64 in one line (the iOS clients) or in lines of 64. Throws BadCsrError for anything else.
 */
export function csrDerFromBody(body: string): Buffer {
  const base64 = body.replace(ARMOR_LINE, '').replace(/\s+/g, '');
  if (base64.length === 0 || base64.length % 4 === 1 || !BASE64.test(base64)) {
    throw new BadCsrError('the body is not a base64 or PEM certificate request');
  }
  return Buffer.from(base64, 'base64');
}

/** ATAK's default streaming port: its enrollment link leaves it out. */
const DEFAULT_TAK_PORT = 8089;

/**
 * ATAK's enrollment link, `tak://com.atakmap.app/enroll?host=…&username=…&token=…`: ATAK
 * enrolls on port 8446 of `host` with the user name and the token as password, then streams to
 * `host` on 8089, or on the port `host` names (`tak.example.org:8090`).
 */
export function atakEnrollUri(options: {
  takHost: string;
  takPort: number;
  username: string;
  token: string;
}): string {
  const host =
    options.takPort === DEFAULT_TAK_PORT
      ? options.takHost
      : `${options.takHost}:${options.takPort}`;
  const query = new URLSearchParams({ host, username: options.username, token: options.token });
  return `tak://com.atakmap.app/enroll?${query.toString()}`;
}

/**
 * iTAK's server QR code, `{description},{host},{port},ssl`; iTAK then asks for the user name and
 * password. Readers split it on commas into exactly four parts, so the description has none.
 */
export function itakServerQr(options: {
  deployment: string;
  takHost: string;
  takPort: number;
}): string {
  const description = options.deployment.replaceAll(',', ' ');
  return `${description},${options.takHost},${options.takPort},ssl`;
}

/**
 * The registration QR code TAK Tracker and TAKAware scan (docs/tak.md#what-was-tried-and-what-was-not), with the credentials
 * in it: checked against their parsers (flighttactics/TAKAware `TAKAware/Parsers/
 * QRCodeParser.swift` at b11532bf, flighttactics/TAKTracker `TAKTracker/Parsers/
 * QRCodeParser.swift` at 527667ad, and its tests): `serverCredentials.connectionString`
 * `{host}:{port}:ssl` and `userCredentials.username` / `.password`, every value a string (they
 * cast both objects to `[String: String]`). `passphrase` first, as ATAK's own registration codes
 * have it: both apps take a code that splits into exactly four parts at its commas for iTAK's
 * `{description},{host},{port},ssl`, and without it the §14 form has exactly three commas.
 */
export function registrationQr(options: {
  takHost: string;
  takPort: number;
  username: string;
  token: string;
}): string {
  return JSON.stringify({
    passphrase: 'false',
    type: 'registration',
    serverCredentials: { connectionString: `${options.takHost}:${options.takPort}:ssl` },
    userCredentials: { username: options.username, password: options.token },
  });
}
