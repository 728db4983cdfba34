import { lookup } from 'node:dns';
import { Agent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Alias } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { VitePWA } from 'vite-plugin-pwa';
import { localesPlugin } from './build/locales-plugin.ts';
import { sourcemapsPlugin } from './build/sourcemaps-plugin.ts';

/**
 * The production build renders with preact/compat instead of react-dom: the same React code and
 * libraries, a 10 KB runtime instead of 64 KB, which is what keeps the login route under its
 * 70 KB budget on a phone in a car park. The dev server and the component tests keep React (Fast
 * Refresh, Testing Library); the browser tests in `e2e/` run the built app, so they test what
 * ships.
 */
const preactCompat: Alias[] = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
];

/**
 * `*.localhost` names this machine (RFC 6761), as browsers and curl know without asking DNS; Node
 * asks the resolver, which on a plain Debian does not know `portal.localhost`. The dev server's
 * proxy connects by this lookup, so it reaches the local portal by its real name (and SNI).
 */
const lookupLocalhost: LookupFunction = (hostname, options, callback) => {
  const name = hostname === 'localhost' || hostname.endsWith('.localhost') ? '127.0.0.1' : hostname;
  lookup(name, options, callback);
};
const portalAgent = new Agent({ lookup: lookupLocalhost });

export default defineConfig(({ command }) => ({
  plugins: [
    react(),
    tailwindcss(),
    localesPlugin(),
    sourcemapsPlugin(),
    // The offline guides: a service worker (Workbox) that precaches the whole build — the shell,
    // every lazy page, the locales and every illustration — so a member who opened the portal
    // once can read the guides with no signal. The manifest is the server's (it carries the
    // deployment's name, a run-time setting); the worker is registered by a lazy component
    // (`components/update-prompt.tsx`) that also offers a new build once one is deployed.
    VitePWA({
      strategies: 'generateSW',
      registerType: 'prompt',
      injectRegister: false,
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{html,js,css,svg,png,json}'],
        navigateFallback: '/index.html',
        // Not pages of the app: the server answers these itself, never from the cache.
        navigateFallbackDenylist: [/^\/api\//, /^\/ca\//, /^\/metrics/],
        // The branding (deployment name, notices) is the server's, changed without a build:
        // from the network when there is one, else the last copy.
        runtimeCaching: [
          {
            urlPattern: /\/locales\/[a-z]{2}\/dynamic\.json$/,
            handler: 'NetworkFirst',
            options: { cacheName: 'branding', networkTimeoutSeconds: 5 },
          },
        ],
        cleanupOutdatedCaches: true,
        // Source maps are never served (build/sourcemaps-plugin.ts); none for the worker either.
        sourcemap: false,
      },
    }),
    compression({
      // Served by @fastify/static's preCompressed: no compression work per request.
      algorithms: ['gzip', 'brotliCompress'],
      include: /\.(js|css|json|svg)$/,
      threshold: 1024,
    }),
  ],
  resolve: {
    alias: [
      {
        find: '@callsign/contract',
        replacement: fileURLToPath(
          new URL('../../packages/contract/src/index.ts', import.meta.url),
        ),
      },
      ...(command === 'build' ? preactCompat : []),
    ],
  },
  server: {
    // The API runs in the real server (`npm start`); the dev server forwards to it.
    proxy: {
      '/api': {
        target: 'https://portal.localhost:8443',
        secure: false,
        changeOrigin: true,
        agent: portalAgent,
      },
      '/ca': {
        target: 'https://portal.localhost:8443',
        secure: false,
        changeOrigin: true,
        agent: portalAgent,
      },
    },
  },
  build: {
    target: 'es2022',
    // Maps for reading stack traces, never served: no sourceMappingURL in the JavaScript, and the
    // files go to dist-sourcemaps/ beside dist/ (build/sourcemaps-plugin.ts).
    sourcemap: 'hidden',
    // TanStack Query in one chunk of its own: without it the bundler spreads it over the entry and
    // a shared chunk, and the login route's initial JS measured 69.8 KB gzip (0.2 KB under budget);
    // grouped, 69.2 KB.
    rolldownOptions: {
      // react-router reads `React.useOptimistic` and falls back when it is absent
      // (`useOptimisticSafe`), as it is in preact/compat: the notice about that one import is
      // expected, and a first build should print no warning a new user has to wonder about.
      onLog(level, log, handler) {
        if (
          log.code === 'IMPORT_IS_UNDEFINED' &&
          log.message.includes('useOptimistic') &&
          log.message.includes('preact/compat')
        ) {
          return;
        }
        handler(level, log);
      },
      output: {
        codeSplitting: { groups: [{ name: 'query', test: /node_modules[\\/]@tanstack[\\/]/ }] },
      },
    },
  },
}));
