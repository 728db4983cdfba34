import { ApiError, withDetail } from '../../../../lib/api-client';

/**
 * Rethrows a failed admin call with the text to show: the server's detail when it sent one,
 * else `fallback`. The status stays, so that a 409 can be told apart.
 */
export function adminFailure(error: unknown, fallback: string): never {
  return withDetail(error, fallback);
}

/** The server refused because of who is asked about: yourself, or the last admin (409). */
export function isConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409;
}
