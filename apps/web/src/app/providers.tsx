import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Suspense, type ReactNode } from 'react';
import { LoadingScreen } from '../components/loading-screen';
import { AuthProvider } from '../features/auth/components/auth-provider';
import { LoginSessionProvider } from '../features/login/components/login-session';
import { GlobalLoadingProvider } from '../lib/global-loading';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

/** Everything the pages share: queries, translations (suspending), sign-in, the login session. */
export function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <Suspense fallback={<LoadingScreen />}>
        <AuthProvider>
          <LoginSessionProvider>
            <GlobalLoadingProvider>{children}</GlobalLoadingProvider>
          </LoginSessionProvider>
        </AuthProvider>
      </Suspense>
    </QueryClientProvider>
  );
}
