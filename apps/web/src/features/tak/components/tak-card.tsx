import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../components/button';
import { Card } from '../../../components/card';
import { paths } from '../../../lib/paths';
import { TakDownloadButton } from './tak-download';

/**
 * The TAK service card of the home pages: quickstart, usage, and the settings zip; `notice` is
 * what the app puts on top (the renewal banner of the keys TAK connects with).
 */
export function TakCard({ notice }: { notice?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Card title={t('tak_card.title')}>
      {notice !== undefined && <div className="mt-3">{notice}</div>}
      <p className="mt-2 text-stone-700">{t('tak_card.text')}</p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <LinkButton to={paths.tak.quickstart.path}>{t('tak_card.quickstart')}</LinkButton>
        <LinkButton to={paths.tak.usage.path} variant="secondary">
          {t('tak_card.usage')}
        </LinkButton>
        <TakDownloadButton />
      </div>
    </Card>
  );
}
