import { createContext, use, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadingOverlay } from '../components/loading-screen';

/** The global loading flag: while set, a loading screen covers the page. */
const GlobalLoadingContext = createContext<(loading: boolean) => void>(() => undefined);

export function GlobalLoadingProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [loading, setLoading] = useState(false);
  const setter = useMemo(() => setLoading, []);
  return (
    <GlobalLoadingContext value={setter}>
      {children}
      {loading && <LoadingOverlay text={t('loading')} />}
    </GlobalLoadingContext>
  );
}

export function useSetGlobalLoading(): (loading: boolean) => void {
  return use(GlobalLoadingContext);
}
