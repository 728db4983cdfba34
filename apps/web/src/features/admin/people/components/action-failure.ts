import type { TFunction } from 'i18next';
import { ApiError, errorMessage } from '../../../../lib/api-client';
import { errorText } from '../../../../lib/error-text';
import { isConflict } from '../../shared/api/failure';

/**
 * What to say when promoting, demoting or revoking a member failed: the action, then why (a 409
 * says who cannot be changed: yourself, or the last admin; in the reader's language when the
 * server says which).
 */
export function memberActionFailure(
  t: TFunction,
  action: 'promote' | 'demote' | 'revoke',
  error: unknown,
): string {
  const saidWhy = error instanceof ApiError && error.reason !== undefined;
  const reason =
    isConflict(error) && !saidWhy
      ? `${t('admin.users.conflict')} (${errorMessage(error)})`
      : errorText(t, error);
  return `${t(`admin.users.${action}_failed`)} ${reason}`;
}
