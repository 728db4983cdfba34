import { useTranslation } from 'react-i18next';
import { TakDownloadButton } from '../features/tak/components/tak-download';
import { LinkButton } from './button';

/** The TAK service card of the home pages: quickstart, usage, and the settings zip. */
export function TakCard() {
  const { t } = useTranslation();
  return (
    <section
      aria-labelledby="tak-card-title"
      className="rounded-lg border border-stone-200 bg-white p-5 shadow-sm"
    >
      <h2 id="tak-card-title" className="text-xl font-bold">
        {t('tak_card.title')}
      </h2>
      <p className="mt-2 text-stone-700">{t('tak_card.text')}</p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <LinkButton to="/app/services/tak/quickstart">{t('tak_card.quickstart')}</LinkButton>
        <LinkButton to="/app/services/tak/usage" variant="secondary">
          {t('tak_card.usage')}
        </LinkButton>
        <TakDownloadButton />
      </div>
    </section>
  );
}
