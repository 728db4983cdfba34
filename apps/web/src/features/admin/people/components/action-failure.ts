import type { TFunction } from 'i18next';
import { errorMessage } from '../../../../lib/api-client';
import { isConflict } from '../../shared/api/failure';

/**
 * What to say when promoting, demoting or revoking a member failed: the action, then why (a 409
 * says who cannot be changed: yourself, or the last admin).
 */
export function memberActionFailure(
  t: TFunction,
  action: 'promote' | 'demote' | 'revoke',
  error: unknown,
): string {
  const reason = isConflict(error)
    ? `${t('admin.users.conflict')} (${errorMessage(error)})`
    : errorMessage(error);
  return `${t(`admin.users.${action}_failed`)} ${reason}`;
}
