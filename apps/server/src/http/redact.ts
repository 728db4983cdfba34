/**
 * Logs never carry a code, token or key (docs/deployment.md). The path is written from the route
 * that matched, with its parameters as the router decoded them, so no spelling of a URL
 * (percent-encoding, case) can slip a code past: a parameter is written only when its name
 * says it holds no secret, and query values never are.
 */
const CLEAR_PARAMS: ReadonlySet<string> = new Set(['callsign', 'lng']);

const REDACTED = '[redacted]';

export interface LoggedRequest {
  /** The raw URL as received. */
  url: string;
  /** The matched route's template (`/api/v1/people/:callsign`); undefined when none matched. */
  route: string | undefined;
  /** The route's parameters, decoded. */
  params: unknown;
}

function paramOf(params: unknown, name: string): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const value: unknown = (params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** The template with each parameter filled in, or redacted when it may hold a secret. */
function routePath(route: string, params: unknown): string {
  return route
    .split('/')
    .map((segment) => {
      if (segment === '*' || segment.startsWith(':')) {
        const name = segment === '*' ? '*' : segment.slice(1);
        const value = paramOf(params, name);
        return CLEAR_PARAMS.has(name) && value !== undefined ? encodeURIComponent(value) : REDACTED;
      }
      return segment;
    })
    .join('/');
}

/**
 * No route matched: a page of the web app (their paths carry no codes; codes travel in the
 * query), or an unknown server path, of which only the area is written.
 */
function unmatchedPath(pathname: string): string {
  for (const area of ['/api/', '/ca/']) {
    if (pathname.startsWith(area)) return `${area}${REDACTED}`;
  }
  return pathname;
}

function redactedQuery(query: string): string {
  return query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=')[0] ?? ''}=${REDACTED}`)
    .join('&');
}

export function redactUrl(request: LoggedRequest): string {
  const queryStart = request.url.indexOf('?');
  const pathname = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const path =
    request.route === undefined
      ? unmatchedPath(pathname)
      : routePath(request.route, request.params);
  if (queryStart === -1) return path;
  return `${path}?${redactedQuery(request.url.slice(queryStart + 1))}`;
}
