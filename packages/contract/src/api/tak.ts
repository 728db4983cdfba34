import { z } from 'zod';
import { API_PREFIX } from '../paths.js';
import { isoTime } from './fields.js';

/** The calls of one-scan TAK enrollment. */
export const takPaths = {
  /** POST (the member, by key or by their JWT once approved): a token for the caller. */
  enrollmentToken: `${API_PREFIX}/tak/enrollment-token`,
  /** POST (admin, an enrollment station): a token for that member. */
  enrollmentTokenFor: (callsign: string) =>
    `${API_PREFIX}/tak/enrollment-token/${encodeURIComponent(callsign)}`,
  /**
   * GET (the member): the trust package, a zip without any key; `?client=itak` the form iTAK
   * reads (unsuffixed keys and a root `config.pref`).
   */
  trustPackage: `${API_PREFIX}/tak/trust-package`,
  /**
   * GET (anyone, on the public face): the same trust package without a user name, for a phone
   * that scans its address off a laptop's TAK card and is signed in nowhere (issue 31).
   */
  unnamedTrustPackage: `${API_PREFIX}/tak/trust-package/unnamed`,
} as const;

/** Characters of an enrollment token, from the code alphabet (single use, minutes to live). */
export const TAK_ENROLL_TOKEN_LENGTH = 12;

/**
 * A one-time login for the TAK certificate-enrollment protocol: a TAK client enrolls on
 * `https://{host}:{port}` with user name `username` and password `token`.
 */
export const takEnrollmentTokenResponseSchema = z.object({
  /** The callsign as recorded. */
  username: z.string(),
  token: z.string().length(TAK_ENROLL_TOKEN_LENGTH),
  expires_at: isoTime,
  /** The TAK server's name (`TAK_HOST`): the enrollment face listens on it too. */
  host: z.string(),
  /** The enrollment face's port (8446, ATAK's fixed enrollment port, in a deployment). */
  port: z.number().int(),
  /** `tak://com.atakmap.app/enroll?host=…&username=…&token=…`: ATAK's enrollment QR code. */
  atak_uri: z.string().startsWith('tak://'),
  /** `{deployment},{host},{TAK port},ssl`: iTAK's server QR code (it then asks for both). */
  itak_qr: z.string(),
  registration_qr: z.string(),
  /**
   * Whether phones trust the enrollment face's certificate by themselves (a publicly trusted
   * one). When false, ATAK imports the trust package before it scans.
   */
  trusted_by_phones: z.boolean(),
});

/** Which client the trust package is written for: ATAK's form by default, or iTAK's. */
export const TRUST_PACKAGE_CLIENTS = ['atak', 'itak'] as const;
export type TrustPackageClient = (typeof TRUST_PACKAGE_CLIENTS)[number];

export const trustPackageQuerySchema = z.object({
  client: z.enum(TRUST_PACKAGE_CLIENTS).default('atak'),
});

/** The trust package: a zip (`application/zip`) with the connection and the truststore only. */
export const trustPackageResponseSchema = z.file();

export type TakEnrollmentTokenResponse = z.infer<typeof takEnrollmentTokenResponseSchema>;
