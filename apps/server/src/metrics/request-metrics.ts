import type { FastifyInstance } from 'fastify';
import type { PortalMetrics } from './portal-metrics.js';

/** Route labels of what has no pattern of its own worth a series. */
export const ROUTE_LABELS = {
  /** A page of the web app (index.html for the app's router). */
  page: '(page)',
  /** A file of the built web app: one route per file, names that change with every build. */
  file: '(file)',
  /** Nothing matched: a 404, or a URL the router could not read. */
  unmatched: '(unmatched)',
} as const;

/** The API, the CA and the branding routes by their pattern; the web app's in three groups. */
export function routeLabel(pattern: string | undefined, status: number): string {
  if (pattern === undefined) return status < 400 ? ROUTE_LABELS.page : ROUTE_LABELS.unmatched;
  if (/^\/(api|ca|locales)(\/|$)/.test(pattern)) return pattern;
  return ROUTE_LABELS.file;
}

/**
 * Counts every answered request and its latency by route pattern and status; a 429 on a route
 * that spends the failure budget is a refusal of that budget (nothing else answers 429).
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: PortalMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = routeLabel(request.routeOptions.url, reply.statusCode);
    metrics.requestFinished({
      method: request.method,
      route,
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    if (reply.statusCode === 429 && request.routeOptions.config.failureBudget !== undefined) {
      metrics.failureBudgetRefused(route);
    }
  });
}
