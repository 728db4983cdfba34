import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { buildApp } from '../../src/app.js';
import { openTestPortal } from '../support/inject-portal.js';

// The OpenAPI document is generated from the contract's zod schemas and committed
// (apps/server/openapi.json), so that every change to the API shows up in review.
// After an intended change: npm run openapi (rewrites the file), then commit it.

describe('the OpenAPI document', () => {
  it('is served at /api/openapi.json and matches the committed file', async () => {
    const opened = await openTestPortal({ version: '0.0.0' });
    const app = await buildApp(opened.portal, { logger: false });
    try {
      await app.ready();
      const response = await app.inject({ method: 'GET', url: apiPaths.openapi });
      expect(response.statusCode).toBe(200);
      const document = response.json<{ openapi: string; paths: Record<string, unknown> }>();
      expect(document.openapi).toMatch(/^3\./);
      for (const call of [apiPaths.healthcheck, apiPaths.checkAuthAny, apiPaths.enroll]) {
        expect(Object.keys(document.paths)).toContain(call);
      }
      await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot(
        '../../openapi.json',
      );
    } finally {
      await app.close();
      await opened.destroy();
    }
  });
});
