import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { Providers, createQueryClient } from './app/providers';
import { AppRoutes } from './app/router';
import { initI18n } from './lib/i18n';
import './index.css';

const root = document.getElementById('root');
if (!root) throw new Error('The page has no #root element');

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
