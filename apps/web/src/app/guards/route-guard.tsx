import { Navigate, Outlet, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LoadingScreen } from '../../components/loading-screen';
import { OfflinePage } from '../../features/errors/components/offline-page';
import { resolveRoute, type RouteRequirement } from './resolve-route';
import { useGuardState } from './use-guard-state';

/** Renders the child routes, the loading text, the offline page or a redirect, as `resolveRoute` decides. */
export function RouteGuard({ requirement }: { requirement: RouteRequirement }) {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  const decision = resolveRoute(useGuardState(), requirement, `${pathname}${search}`);
  switch (decision.kind) {
    case 'loading':
      return <LoadingScreen text={t('loading')} />;
    case 'offline':
      return <OfflinePage />;
    case 'redirect':
      return <Navigate to={decision.to} replace />;
    case 'render':
      return <Outlet />;
  }
}
