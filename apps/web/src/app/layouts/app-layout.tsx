import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { AuthenticatedFooter, PublicFooter } from '../../components/footer';
import { Header, type BackLink } from '../../components/header';
import { LoadingScreen } from '../../components/loading-screen';
import { OfflineNotice } from '../../components/offline-notice';
import { useSignOut } from '../../features/auth/api/sign-out';
import { useAuth } from '../../features/auth/components/auth-provider';
import { isMtlsOrigin } from '../../lib/hosts';
import { paths } from '../../lib/paths';
import { readStored, STORAGE_KEYS } from '../../lib/storage-keys';
import { ScrollToTop } from '../scroll-to-top';

// The service worker's registration and update offer: production builds only, after the page.
const UpdatePrompt = lazy(() => import('../../components/update-prompt'));

/** Pages with a back link at the right of the header, and where it leads. */
const BACK_LINKS: Record<string, string> = {
  [paths.loginCallsign.path]: paths.login.path,
};

function useBackLink(): BackLink | undefined {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const to = BACK_LINKS[pathname];
  return to === undefined ? undefined : { to, label: t('nav.back') };
}

/**
 * The page frame: header (the deployment's name from its branding, the one name the app, the
 * installed app and the login page show; "Sign out" while a session is stored on this device),
 * the page, and the footer of the face (mTLS or public). While sign-in resolution loads, only the
 * loading text shows.
 */
export function AppLayout() {
  const { t } = useTranslation();
  const auth = useAuth();
  const back = useBackLink();
  const signOut = useSignOut();
  if (auth.isLoading) {
    return (
      <>
        <ScrollToTop />
        <LoadingScreen text={t('loading')} />
      </>
    );
  }
  return (
    <div className="flex min-h-dvh flex-col bg-stone-50 text-stone-900">
      <ScrollToTop />
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
      >
        {t('skip_to_content')}
      </a>
      <Header
        title={t('dynamic:deployment_name')}
        back={back}
        signOut={
          readStored(STORAGE_KEYS.token) === null
            ? undefined
            : { label: t('sign_out'), name: t('footer.sign_out'), onClick: signOut }
        }
      />
      <OfflineNotice />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <Outlet />
      </main>
      {isMtlsOrigin() ? <AuthenticatedFooter /> : <PublicFooter />}
      {import.meta.env.PROD && (
        <Suspense fallback={null}>
          <UpdatePrompt />
        </Suspense>
      )}
    </div>
  );
}
