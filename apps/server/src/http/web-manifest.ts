import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

const FALLBACK_NAME = 'Callsign Portal';
const brandingSchema = z.looseObject({ deployment_name: z.string().trim().min(1).optional() });

/** The deployment's name as its branding set states it (English), read on each request. */
async function deploymentName(brandingDir: string): Promise<string> {
  try {
    const text = await readFile(path.join(brandingDir, 'locales', 'en', 'dynamic.json'), 'utf8');
    const parsed = brandingSchema.safeParse(JSON.parse(text));
    return (parsed.success ? parsed.data.deployment_name : undefined) ?? FALLBACK_NAME;
  } catch {
    return FALLBACK_NAME;
  }
}

/**
 * `/manifest.webmanifest`, what makes the web app installable: written here rather than at build
 * time because the name is the deployment's (its branding set, `PORTAL_BRANDING`), which an
 * operator changes without a build. The icons are the build's (`apps/web/public/icons`).
 */
export function registerWebManifest(app: FastifyInstance, brandingDir: string): void {
  app.get('/manifest.webmanifest', { schema: { hide: true } }, async (_request, reply) => {
    const name = await deploymentName(brandingDir);
    return reply
      .header('cache-control', 'no-cache')
      .type('application/manifest+json; charset=utf-8')
      .send(
        JSON.stringify({
          name,
          short_name: name,
          start_url: '/',
          scope: '/',
          display: 'standalone',
          background_color: '#fafaf9',
          theme_color: '#1f3a2e',
          icons: [
            { src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml' },
            { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
            { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          ],
        }),
      );
  });
}
