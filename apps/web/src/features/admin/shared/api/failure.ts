import { ApiError } from '../../../../lib/api-client';

/**
 * Rethrows a failed admin call with the text to show: the server's detail when it sent one,
 * else `fallback`. The status stays, so that a 409 can be told apart.
 */
export function adminFailure(error: unknown, fallback: string): never {
  if (error instanceof ApiError) {
    throw new ApiError(error.status, error.detail ?? fallback, error.retryAfterSeconds);
  }
  throw error;
}

/** The server refused because of who is asked about: yourself, or the last admin (409). */
export function isConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409;
}
