import type { ErrorReason } from '@callsign/contract';
import type { TFunction } from 'i18next';
import { ApiError, errorMessage } from './api-client';
import { mtlsOrigin } from './hosts';

/**
 * What to show for a failed call, in the reader's language when the server gave a `reason`
 * (the contract's error-reasons.ts); otherwise the server's own text, as `errorMessage`.
 */
export function errorText(t: TFunction, error: unknown): string {
  if (error instanceof ApiError && error.reason !== undefined) return reasonText(t, error.reason);
  return errorMessage(error);
}

/** A refusal reason in the reader's language: a failed call's, or one the app knows beforehand. */
export function reasonText(t: TFunction, reason: ErrorReason): string {
  return t(`errors.reasons.${reason}`, { ns: 'common', mtls: mtlsOrigin() });
}
