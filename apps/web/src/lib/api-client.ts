import { isErrorReason, type ErrorReason } from '@callsign/contract';
import type { ParsedResponse, ResponseName } from './response-schemas';
import { noteNoResponse, noteResponse } from './reachability';
import { STORAGE_KEYS, readStored } from './storage-keys';

/**
 * A non-OK answer: the status, the server's `detail` text when it sent one, for a 429 the
 * seconds its `Retry-After` says to wait, and the `reason` a refusal may give (lib/error-text.ts
 * says it in the reader's language).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly detail: string | undefined,
    readonly retryAfterSeconds?: number,
    readonly reason?: ErrorReason,
  ) {
    super(detail ?? `Request failed with status ${status}`);
  }
}

/**
 * Rethrows a failed call with the text to show: an ApiError keeps its status, wait and reason,
 * with `fallback` when the server sent no detail; anything else as it is.
 */
export function withDetail(error: unknown, fallback: string): never {
  if (error instanceof ApiError) {
    throw new ApiError(
      error.status,
      error.detail ?? fallback,
      error.retryAfterSeconds,
      error.reason,
    );
  }
  throw error;
}

/**
 * For a refusal of too many attempts (429), the whole minutes to wait before the next one, as
 * its `Retry-After` says (at least 1); undefined for any other error. Pages show it as "try
 * again in N minutes" in the reader's language.
 */
export function minutesToWait(error: unknown): number | undefined {
  if (!(error instanceof ApiError) || error.status !== 429) return undefined;
  return Math.max(1, Math.ceil((error.retryAfterSeconds ?? 60) / 60));
}

/** `Retry-After` in seconds (the server sends seconds, never a date); undefined without one. */
function retryAfterOf(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** Send the stored JWT as a Bearer token when there is one. */
  bearer?: boolean;
  /** An explicit token (the admin flow holds its intermediate tokens in memory). */
  token?: string;
  query?: Record<string, string>;
  signal?: AbortSignal;
  /** Let the request finish after the page is left (sign-out, then a reload). */
  keepalive?: boolean;
}

function detailOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('detail' in data)) return undefined;
  const detail = data.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const messages = detail
      .map((issue: unknown) =>
        typeof issue === 'object' && issue !== null && 'msg' in issue ? String(issue.msg) : '',
      )
      .filter((message) => message !== '');
    return messages.length > 0 ? messages.join(', ') : undefined;
  }
  return undefined;
}

function reasonOf(data: unknown): ErrorReason | undefined {
  if (typeof data !== 'object' || data === null || !('reason' in data)) return undefined;
  return isErrorReason(data.reason) ? data.reason : undefined;
}

function buildRequest(path: string, options: RequestOptions): [URL, RequestInit] {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json',
  };
  const token = options.token ?? (options.bearer === true ? readStored(STORAGE_KEYS.token) : null);
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const url = new URL(path, window.location.origin);
  if (options.query !== undefined) url.search = new URLSearchParams(options.query).toString();
  const init: RequestInit = { method: options.method ?? 'GET', headers };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  if (options.signal !== undefined) init.signal = options.signal;
  if (options.keepalive === true) init.keepalive = true;
  return [url, init];
}

/** Sends one call; throws ApiError on any non-OK status. */
export async function apiRequest(path: string, options: RequestOptions = {}): Promise<Response> {
  const [url, init] = buildRequest(path, options);
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'AbortError')) noteNoResponse();
    throw error;
  }
  noteResponse(response.status);
  if (!response.ok) {
    let data: unknown;
    try {
      data = await response.json();
    } catch {
      data = undefined;
    }
    throw new ApiError(response.status, detailOf(data), retryAfterOf(response), reasonOf(data));
  }
  return response;
}

/** An OK answer that is not what the contract says it is; the message names the call and why. */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  constructor(
    readonly call: string,
    readonly problems: string,
  ) {
    super(`Unexpected answer to ${call}: ${problems}`);
  }
}

/** What a call's answer is once its schema has parsed it. */
export type ApiResponse<Name extends ResponseName> = Extract<
  ParsedResponse<Name>,
  { ok: true }
>['data'];

// The contract's schemas bring zod: their own chunk, loaded alongside the first call.
const loadResponseSchemas = () => import('./response-schemas');

/**
 * Sends one call and parses its JSON answer with the contract's schema `response`. Throws
 * ApiError on a non-OK status, UnexpectedResponseError when the answer does not match.
 */
export async function apiJson<Name extends ResponseName>(
  path: string,
  response: Name,
  options: RequestOptions = {},
): Promise<ApiResponse<Name>> {
  const schemas = loadResponseSchemas();
  const answer = await apiRequest(path, options);
  const call = `${options.method ?? 'GET'} ${path}`;
  let body: unknown;
  try {
    body = await answer.json();
  } catch {
    throw new UnexpectedResponseError(call, 'the answer is not JSON');
  }
  const parsed = (await schemas).parseResponse(response, body);
  if (!parsed.ok) throw new UnexpectedResponseError(call, parsed.problems);
  return parsed.data;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
