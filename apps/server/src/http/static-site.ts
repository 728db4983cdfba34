import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../errors.js';
import { registerWebManifest } from './web-manifest.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** Paths the web app never owns: the API and the CA endpoints answer 404 themselves. */
function isServerPath(url: string): boolean {
  return url.startsWith('/api/') || url === '/api' || url.startsWith('/ca/');
}

/** A path whose last segment has a dot names a file; a missing file is a 404, not the app. */
function looksLikeFile(pathname: string): boolean {
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  return last.includes('.');
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Callsign Portal</title>
<body><h1>The web app is not built</h1><p>Run <code>npm start</code> from the repository, which builds it, or
<code>npm run build</code>.</p></body></html>`;

/** Languages the web app loads; any other `{lng}` is a 404 (and never a path outside the set). */
const LANGUAGE_PATTERN = /^[a-z]{2}$/;

export interface StaticSiteOptions {
  /** The branding set's folder (`config.brandingDir`). */
  brandingDir: string;
}

/**
 * `/locales/{lng}/dynamic.json`: the web app's `dynamic` namespace (deployment name, footer
 * notices, privacy text) from the branding set chosen by `PORTAL_BRANDING`. Read on each
 * request, so an operator's edit shows without a restart.
 */
function registerBranding(app: FastifyInstance, brandingDir: string): void {
  app.get<{ Params: { lng: string } }>(
    '/locales/:lng/dynamic.json',
    { schema: { hide: true } },
    async (request, reply) => {
      const { lng } = request.params;
      if (!LANGUAGE_PATTERN.test(lng)) throw new NotFoundError();
      let text: string;
      try {
        text = await readFile(path.join(brandingDir, 'locales', lng, 'dynamic.json'), 'utf8');
      } catch {
        throw new NotFoundError();
      }
      return reply
        .header('cache-control', REVALIDATE)
        .type('application/json; charset=utf-8')
        .send(text);
    },
  );
}

/**
 * Libraries that inject a `<style>` element at run time (Radix's scroll lock) read the nonce the
 * strict CSP allows from this meta tag, so style-src needs no 'unsafe-inline'.
 */
function withStyleNonce(html: string, nonce: string): string {
  return html.replace('<head>', `<head>\n    <meta property="csp-nonce" content="${nonce}" />`);
}

/**
 * Serves the built web app on both faces: hashed assets cached for a year, everything else
 * revalidated, and every other page path answered with index.html for the app's router.
 */
export async function registerStaticSite(
  app: FastifyInstance,
  webDir: string,
  options: StaticSiteOptions,
): Promise<void> {
  registerBranding(app, options.brandingDir);
  registerWebManifest(app, options.brandingDir);
  const indexFile = path.join(webDir, 'index.html');
  const indexHtml = existsSync(indexFile) ? await readFile(indexFile, 'utf8') : undefined;
  if (indexHtml !== undefined) {
    await app.register(fastifyStatic, {
      root: webDir,
      prefix: '/',
      wildcard: false,
      index: false,
      // index.html is answered below, with this reply's CSP nonce in it.
      globIgnore: ['index.html'],
      cacheControl: false,
      // The build writes .br and .gz beside each asset; send those bytes to browsers that take them.
      preCompressed: true,
      setHeaders(reply, filePath) {
        const relative = path.relative(webDir, filePath);
        void reply.header(
          'cache-control',
          relative.startsWith(`assets${path.sep}`) ? IMMUTABLE : REVALIDATE,
        );
      },
    });
  } else {
    app.log.warn({ webDir }, 'web app not built: pages answer with a notice');
  }

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !isServerPath(pathname) &&
      (pathname === '/index.html' || !looksLikeFile(pathname));
    if (!isPage) throw new NotFoundError();
    reply.header('cache-control', REVALIDATE).type('text/html; charset=utf-8');
    if (indexHtml === undefined) return reply.send(NOT_BUILT_PAGE);
    return reply.send(withStyleNonce(indexHtml, reply.cspNonce.style));
  });
}
