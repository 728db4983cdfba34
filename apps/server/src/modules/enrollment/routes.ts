import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';

/** The enrollment calls of product.md §4. */
export function registerEnrollmentRoutes(_app: FastifyInstance, _context: RouteContext): void {
  // Filled by the API issue.
}
