import { useTranslation } from 'react-i18next';
import { TakDownloadButton } from '../features/tak/components/tak-download';
import { LinkButton } from './button';
import { Card } from './card';

/** The TAK service card of the home pages: quickstart, usage, and the settings zip. */
export function TakCard() {
  const { t } = useTranslation();
  return (
    <Card title={t('tak_card.title')}>
      <p className="mt-2 text-stone-700">{t('tak_card.text')}</p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <LinkButton to="/app/services/tak/quickstart">{t('tak_card.quickstart')}</LinkButton>
        <LinkButton to="/app/services/tak/usage" variant="secondary">
          {t('tak_card.usage')}
        </LinkButton>
        <TakDownloadButton />
      </div>
    </Card>
  );
}
