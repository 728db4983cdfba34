import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../components/button';
import { Navbar } from '../../components/navbar';
import { paths } from '../../lib/paths';
import { GUIDE_PLATFORMS, TAK_GUIDES, stepPath } from './structure';

/** /app/services/tak/quickstart: one card per app leading to its first step. */
export function QuickstartList() {
  const { t } = useTranslation();
  return (
    <>
      <Navbar
        title={t('tak.quickstart.title')}
        backUrl={paths.home.path}
        backLabel={t('tak.nav.home')}
      />
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 px-4 py-5">
        <h1 className="text-2xl font-bold">{t('tak.quickstart.title')}</h1>
        <p className="text-stone-700">{t('tak.quickstart.intro')}</p>
        <ul className="grid gap-4 sm:grid-cols-3">
          {GUIDE_PLATFORMS.map((platform) => {
            const steps = TAK_GUIDES.quickstart[platform];
            const first = steps[0]?.id ?? '';
            return (
              <li
                key={platform}
                className="flex flex-col gap-2 rounded-lg border border-stone-200 bg-white p-4 shadow-sm"
              >
                <h2 className="text-lg font-bold">{t(`tak.quickstart.cards.${platform}.title`)}</h2>
                <p className="flex-1 text-stone-700">
                  {t(`tak.quickstart.cards.${platform}.text`)}
                </p>
                <p className="text-sm text-stone-600">
                  {t('tak.quickstart.step_count', { count: steps.length })}
                </p>
                <LinkButton
                  to={stepPath('quickstart', first)}
                  aria-label={t('tak.quickstart.start_aria', {
                    app: t(`tak.apps.${platform}`),
                  })}
                >
                  {t('tak.quickstart.start')}
                </LinkButton>
              </li>
            );
          })}
        </ul>
      </div>
    </>
  );
}
