import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes } from 'react-router';
import { LoadingScreen } from '../../../components/loading-screen';
import { NotFoundPage } from '../../errors/components/not-found-page';

// Each guide page is its own chunk: nothing of the guides loads before a TAK page is opened.
const QuickstartList = lazy(() => import('../../../guides/tak/quickstart-list'));
const UsageOverview = lazy(() => import('../../../guides/tak/usage-overview'));
const GuideStepPage = lazy(() => import('../../../guides/tak/guide-step-page'));

function Lazy({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return <Suspense fallback={<LoadingScreen text={t('loading')} />}>{children}</Suspense>;
}

/** /app/services/tak/*: the quickstart and usage guides (spec §2 "TAK pages"); a lazy chunk. */
export function TakArea() {
  return (
    <Lazy>
      <Routes>
        <Route index element={<Navigate to="quickstart" replace />} />
        <Route path="quickstart" element={<QuickstartList />} />
        <Route path="quickstart/:step" element={<GuideStepPage section="quickstart" />} />
        <Route path="usage" element={<UsageOverview />} />
        <Route path="usage/:step" element={<GuideStepPage section="usage" />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Lazy>
  );
}

export default TakArea;
