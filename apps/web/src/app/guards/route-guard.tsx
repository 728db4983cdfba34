import { Navigate, Outlet } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LoadingScreen } from '../../components/loading-screen';
import { resolveRoute, type RouteRequirement } from './resolve-route';
import { useGuardState } from './use-guard-state';

/** Renders the child routes, the loading text, or a redirect, as `resolveRoute` decides. */
export function RouteGuard({ requirement }: { requirement: RouteRequirement }) {
  const { t } = useTranslation();
  const decision = resolveRoute(useGuardState(), requirement);
  switch (decision.kind) {
    case 'loading':
      return <LoadingScreen text={t('loading')} />;
    case 'redirect':
      return <Navigate to={decision.to} replace />;
    case 'render':
      return <Outlet />;
  }
}
