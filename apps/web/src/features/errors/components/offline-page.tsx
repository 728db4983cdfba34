import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../../components/button';
import { paths } from '../../../lib/paths';

/**
 * A page that needs the portal, asked while it cannot be reached: says so and leads to the
 * guides, which the app keeps on the device (never the sign-in form, which cannot work offline).
 * The page comes back by itself: sign-in resolution runs again once the portal answers.
 */
export function OfflinePage() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto w-full max-w-md px-4 py-8">
      <h1 className="text-2xl font-bold">{t('offline_page.title')}</h1>
      <p className="mt-3 text-stone-700">{t('offline_page.text')}</p>
      <div className="mt-6 flex flex-col gap-2 sm:flex-row">
        <LinkButton to={paths.tak.quickstart.path}>{t('tak_card.quickstart')}</LinkButton>
        <LinkButton to={paths.tak.usage.path} variant="secondary">
          {t('tak_card.usage')}
        </LinkButton>
      </div>
    </div>
  );
}
