import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Route, Routes } from 'react-router';
import { LoadingScreen } from '../components/loading-screen';
import { ErrorPage } from '../features/errors/components/error-page';
import { NotFoundPage } from '../features/errors/components/not-found-page';
import { CallsignPage } from '../features/login/components/callsign-page';
import { LoginPage } from '../features/login/components/login-page';
import { ROUTE_REQUIREMENTS as R } from './guards/resolve-route';
import { RouteGuard } from './guards/route-guard';
import { AppLayout } from './layouts/app-layout';

// Everything but the login steps loads in its own chunk (the login bundle stays small).
const EnrollmentRoute = lazy(() => import('./routes/enrollment-route'));
const CreateMtlsRoute = lazy(() => import('./routes/create-mtls-route'));
const MemberRoute = lazy(() => import('./routes/member-route'));
const AdminArea = lazy(() => import('../features/admin/components/admin-area'));
const TakArea = lazy(() => import('../features/tak/components/tak-area'));

function Lazy({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return <Suspense fallback={<LoadingScreen text={t('loading')} />}>{children}</Suspense>;
}

/** The route table of spec §2; each guarded group sits under the guard of its row. */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/" element={<RouteGuard requirement={R.home} />} />
        <Route element={<RouteGuard requirement={R.login} />}>
          <Route path="/login" element={<LoginPage />} />
        </Route>
        <Route element={<RouteGuard requirement={R.loginCallsign} />}>
          <Route path="/login/callsign" element={<CallsignPage />} />
        </Route>
        <Route element={<RouteGuard requirement={R.loginEnrollment} />}>
          <Route
            path="/login/enrollment"
            element={
              <Lazy>
                <EnrollmentRoute />
              </Lazy>
            }
          />
        </Route>
        <Route element={<RouteGuard requirement={R.loginCreateMtls} />}>
          <Route
            path="/login/createmtls"
            element={
              <Lazy>
                <CreateMtlsRoute />
              </Lazy>
            }
          />
        </Route>
        <Route element={<RouteGuard requirement={R.admin} />}>
          <Route
            path="/app/admin/*"
            element={
              <Lazy>
                <AdminArea />
              </Lazy>
            }
          />
        </Route>
        <Route element={<RouteGuard requirement={R.users} />}>
          <Route
            path="/app/users/:callsign/*"
            element={
              <Lazy>
                <MemberRoute />
              </Lazy>
            }
          />
        </Route>
        <Route element={<RouteGuard requirement={R.tak} />}>
          <Route
            path="/app/services/tak/*"
            element={
              <Lazy>
                <TakArea />
              </Lazy>
            }
          />
        </Route>
        <Route path="/error" element={<ErrorPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
