import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';

/** The invites calls of product.md §4. */
export function registerInvitesRoutes(_app: FastifyInstance, _context: RouteContext): void {
  // Filled by the API issue.
}
