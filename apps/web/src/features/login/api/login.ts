import { useMutation } from '@tanstack/react-query';
import {
  apiPaths,
  INVITE_REFUSAL_DETAIL,
  INVITE_REFUSALS,
  RESERVED_CALLSIGN_DETAIL,
  type EnrollResponse,
  type InviteRefusal,
} from '@callsign/contract';
import { ApiError, apiJson } from '../../../lib/api-client';

export const loginKeys = {
  all: ['login'] as const,
  checkCode: () => [...loginKeys.all, 'check-code'] as const,
  adminLogin: () => [...loginKeys.all, 'admin'] as const,
  enroll: () => [...loginKeys.all, 'enroll'] as const,
};

export interface CodeValidity {
  isAdminCodeValid: boolean;
  isEnrollmentCodeValid: boolean;
  /** The callsign a bulk slip's code is for: the only one it enrolls. */
  reservedCallsign?: string | undefined;
  /** An invite code that exists but admits nobody now: why (deactivated, expired, used up). */
  inviteRefusal?: InviteRefusal | undefined;
  /** The member's session when the code was a renewal code; else null. */
  renewalToken: string | null;
}

/**
 * The code validity check: the admin-code check and the invite check together. A code that is
 * neither may be a renewal code an admin made: only then is it exchanged, which spends it and
 * signs the member in (a 403 means no code at all).
 */
export async function checkCode(code: string): Promise<CodeValidity> {
  const [admin, invite] = await Promise.all([
    apiJson(apiPaths.checkAdminCode, 'checkAdminCode', { query: { temp_admin_code: code } }),
    apiJson(apiPaths.checkInviteCode, 'checkInviteCode', { query: { invitecode: code } }),
  ]);
  const validity = {
    isAdminCodeValid: admin.code_ok,
    isEnrollmentCodeValid: invite.invitecode_is_active,
    reservedCallsign: invite.reserved_callsign,
    inviteRefusal: invite.invitecode_state,
    renewalToken: null,
  };
  if (validity.isAdminCodeValid || validity.isEnrollmentCodeValid) return validity;
  return { ...validity, renewalToken: await redeemRenewalCode(code) };
}

async function redeemRenewalCode(code: string): Promise<string | null> {
  try {
    return await exchange(code);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;
    throw error;
  }
}

async function exchange(code: string): Promise<string> {
  const answer = await apiJson(apiPaths.exchangeCode, 'exchangeCode', {
    method: 'POST',
    body: { code },
  });
  return answer.jwt;
}

const ADMIN_LOGIN_FAILED = 'Failed to login as admin';

/** Holds the first-admin token between attempts: the admin code works only once. */
export interface AdminLoginCache {
  firstToken?: string;
}

/**
 * The admin flow (docs/api.md, sign-in): exchange the admin code, add the admin, exchange the
 * returned code for the final token. Failures keep the status (400: the callsign is taken). The
 * token of the first exchange is kept in `cache`, so a second callsign can be tried after a taken
 * one.
 */
export async function loginAsAdmin(
  code: string,
  callsign: string,
  cache: AdminLoginCache = {},
): Promise<string> {
  try {
    cache.firstToken ??= await exchange(code);
    // An answer without `admin_added: true` does not match the contract: an unexpected answer.
    const added = await apiJson(apiPaths.addAdmin, 'addAdmin', {
      method: 'POST',
      body: { callsign },
      token: cache.firstToken,
    });
    return await exchange(added.jwt_exchange_code);
  } catch (error) {
    // A refused callsign (400) keeps its detail: the page tells a reserved one from a taken one.
    if (error instanceof ApiError) {
      throw new ApiError(error.status, error.status === 400 ? error.detail : ADMIN_LOGIN_FAILED);
    }
    throw error;
  }
}

/** POST enrollment/invitecode/enroll. */
export function enroll(callsign: string, inviteCode: string): Promise<EnrollResponse> {
  return apiJson(apiPaths.enroll, 'enroll', {
    method: 'POST',
    body: { callsign, invite_code: inviteCode },
  });
}

export function useCheckCode() {
  return useMutation({ mutationKey: loginKeys.checkCode(), mutationFn: checkCode });
}

export function useAdminLogin() {
  return useMutation({
    mutationKey: loginKeys.adminLogin(),
    mutationFn: ({
      code,
      callsign,
      cache,
    }: {
      code: string;
      callsign: string;
      cache: AdminLoginCache;
    }) => loginAsAdmin(code, callsign, cache),
  });
}

export function useEnroll() {
  return useMutation({
    mutationKey: loginKeys.enroll(),
    mutationFn: ({ code, callsign }: { code: string; callsign: string }) => enroll(callsign, code),
  });
}

/**
 * A 400 means the callsign is reserved (its own detail), the invite code stopped admitting people
 * since it was checked (its detail says why), or the callsign is taken; anything else is
 * unexpected.
 */
export function callsignErrorKey(
  error: unknown,
):
  | 'errors.callsign_reserved'
  | 'errors.callsign_in_use'
  | 'errors.unexpected_error'
  | `code_refused.${InviteRefusal}` {
  if (!(error instanceof ApiError) || error.status !== 400) return 'errors.unexpected_error';
  if (error.detail === RESERVED_CALLSIGN_DETAIL) return 'errors.callsign_reserved';
  const refusal = INVITE_REFUSALS.find((name) => INVITE_REFUSAL_DETAIL[name] === error.detail);
  return refusal === undefined ? 'errors.callsign_in_use' : `code_refused.${refusal}`;
}
