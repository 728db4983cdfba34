import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderResult } from '@testing-library/react';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { LoginSessionProvider } from '../features/login/components/login-session';
import { GlobalLoadingProvider } from '../lib/global-loading';
import { createTestI18n } from './i18n';

export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
}

/** Renders with the app's providers (not sign-in) around a memory router at `path`. */
export function renderWithProviders(
  ui: ReactNode,
  {
    path = '/',
    client = createTestQueryClient(),
    language = 'en',
  }: { path?: string; client?: QueryClient; language?: string } = {},
): RenderResult & { client: QueryClient } {
  const result = render(
    <QueryClientProvider client={client}>
      <I18nextProvider i18n={createTestI18n(language)}>
        <LoginSessionProvider>
          <GlobalLoadingProvider>
            <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
          </GlobalLoadingProvider>
        </LoginSessionProvider>
      </I18nextProvider>
    </QueryClientProvider>,
  );
  return { ...result, client };
}
