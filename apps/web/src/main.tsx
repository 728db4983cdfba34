import { StrictMode } from 'react';
import { setNonce } from 'get-nonce';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { Providers, createQueryClient } from './app/providers';
import { AppRoutes } from './app/router';
import { initI18n } from './lib/i18n';
import './index.css';

const root = document.getElementById('root');
if (!root) throw new Error('The page has no #root element');

// The server puts this page's CSP style nonce in a meta tag; Radix's scroll lock adds its <style>
// element with it, so the strict style-src holds.
const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.content;
if (nonce !== undefined && nonce !== '') setNonce(nonce);

void initI18n();

// A lazy chunk that no longer exists (a new build was deployed): reload once to get the new one.
window.addEventListener('vite:preloadError', (event) => {
  const key = 'preload-reloaded';
  if (sessionStorage.getItem(key) === null) {
    sessionStorage.setItem(key, '1');
    event.preventDefault();
    window.location.reload();
  }
});

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <Providers client={createQueryClient()}>
        <AppRoutes />
      </Providers>
    </BrowserRouter>
  </StrictMode>,
);
