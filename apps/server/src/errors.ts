import type { ErrorReason, ValidationIssue } from '@callsign/contract';

/**
 * Errors with the HTTP status they answer with. Services throw these; the one error handler in
 * `app.ts` turns them into `{"detail": ...}`. Anything else is a server fault (500, no detail).
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    /** The answer's body when a protocol fixes another shape than `{"detail": ...}`. */
    readonly body?: Record<string, string>,
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError {
  constructor(detail: string) {
    super(400, detail);
  }
}

/** `{"detail", "reason"}` when the refusal has a reason the web app words itself. */
const withReason = (detail: string, reason: ErrorReason | undefined) =>
  reason === undefined ? undefined : { detail, reason };

export class ForbiddenError extends HttpError {
  constructor(detail = 'Forbidden', reason?: ErrorReason) {
    super(403, detail, {}, withReason(detail, reason));
  }
}

export class NotFoundError extends HttpError {
  constructor(detail = 'Not found') {
    super(404, detail);
  }
}

export class ConflictError extends HttpError {
  constructor(detail: string, reason?: ErrorReason) {
    super(409, detail, {}, withReason(detail, reason));
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(detail: string) {
    super(415, detail);
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Too many attempts; try again later', {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(detail: string) {
    super(503, detail);
  }
}

const countedFailures = new WeakSet<object>();

/**
 * Marks a refusal as a failed guess (an unknown code, a taken callsign, a wrong approval code):
 * on a route that spends the failure budget (`config.failureBudget`), the attempt then counts.
 */
export function countsAsFailure<E extends Error>(error: E): E {
  countedFailures.add(error);
  return error;
}

export function isCountedFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && countedFailures.has(error);
}

/** Malformed input: 422 with a list of issues, as FastAPI-style clients expect. */
export class UnprocessableEntityError extends Error {
  readonly statusCode = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super('Unprocessable entity');
    this.name = 'UnprocessableEntityError';
  }
}
