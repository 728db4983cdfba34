import { apiPaths, type RevokePersonResponse } from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';

const REVOKE_FAILED = 'Failed to login as admin';

/** DELETE people/{callsign}: revokes the member and every key they hold. */
export async function revokePerson(callsign: string): Promise<RevokePersonResponse> {
  try {
    return await apiJson(apiPaths.person(callsign), 'revokePerson', { method: 'DELETE' });
  } catch (error) {
    return adminFailure(error, REVOKE_FAILED);
  }
}

export type RoleChange = 'promote' | 'demote';

const ROLE_CHANGE_FAILED: Record<RoleChange, string> = {
  promote: 'Failed to promote user',
  demote: 'Failed to demote user',
};

/**
 * POST enrollment/promote or enrollment/demote. An answer without `success: true` does not match
 * the contract, so it fails as an unexpected answer (an error, not a success).
 */
export async function changeRole(change: RoleChange, callsign: string): Promise<string> {
  try {
    const answer = await apiJson(apiPaths[change], 'roleChange', {
      method: 'POST',
      body: { callsign },
    });
    return answer.detail;
  } catch (error) {
    return adminFailure(error, ROLE_CHANGE_FAILED[change]);
  }
}
