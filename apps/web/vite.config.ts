import { lookup } from 'node:dns';
import { Agent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Alias } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { localesPlugin } from './build/locales-plugin';
import { sourcemapsPlugin } from './build/sourcemaps-plugin';

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
      output: {
        codeSplitting: { groups: [{ name: 'query', test: /node_modules[\\/]@tanstack[\\/]/ }] },
      },
    },
  },
}));
