import type { Portal } from '../../portal.js';
import { TakEnrollment } from './enrollment.js';
import { EnrollmentTokens } from './tokens.js';

/** The tokens and the signing of TAK enrollment, as the enrollment face and the API use them. */
export function takEnrollmentServices(portal: Portal, now: () => Date) {
  const { config } = portal;
  const tokens = new EnrollmentTokens(portal.database.db, config.takEnroll?.tokenTtlMs ?? 0, now);
  const enrollment = new TakEnrollment(tokens, portal.certificates, {
    takHost: config.takHost,
    takPort: config.takPort,
    deployment: config.deployment,
    truststorePassword: config.takTruststorePassword,
    truststorePemFile: config.takTruststorePemFile,
  });
  return { tokens, enrollment };
}
