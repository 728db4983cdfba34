import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { localesPlugin } from './build/locales-plugin';

export default defineConfig({
  plugins: [react(), tailwindcss(), localesPlugin()],
  resolve: {
    alias: {
      '@callsign/contract': fileURLToPath(
        new URL('../../packages/contract/src/index.ts', import.meta.url),
      ),
    },
  },
  server: {
    // The API runs in the real server (`npm start`); the dev server forwards to it.
    proxy: {
      '/api': { target: 'https://portal.localhost:8443', secure: false, changeOrigin: true },
      '/ca': { target: 'https://portal.localhost:8443', secure: false, changeOrigin: true },
    },
  },
  build: {
    target: 'es2022',
    sourcemap: true,
  },
});
