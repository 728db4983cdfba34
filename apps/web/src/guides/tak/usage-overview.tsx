import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../components/button';
import { EnlargeableImage } from '../../components/enlarge-image-dialog';
import { Navbar } from '../../components/navbar';
import { paths } from '../../lib/paths';
import { ILLUSTRATIONS, stepPath } from './structure';

/** How far the usage overview scrolls down on load. */
export const USAGE_SCROLL_PX = 60;

const CARDS = [
  { id: 'flow', image: ILLUSTRATIONS.flow, links: [] },
  { id: 'command_post', image: ILLUSTRATIONS.commandPost, links: [{ step: 'win1', app: 'win' }] },
  {
    id: 'fighter',
    image: ILLUSTRATIONS.fighter,
    links: [
      { step: 'android1', app: 'android' },
      { step: 'ios1', app: 'ios' },
    ],
  },
] as const;

/** /app/services/tak/usage: the flow, at the command post, by the fighter. */
export function UsageOverview() {
  const { t } = useTranslation();
  useEffect(() => {
    window.scrollTo({ top: USAGE_SCROLL_PX });
  }, []);
  return (
    <>
      <Navbar
        title={t('tak.usage.title')}
        backUrl={paths.home.path}
        backLabel={t('tak.nav.home')}
      />
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 px-4 py-5">
        <h1 className="text-2xl font-bold">{t('tak.usage.title')}</h1>
        <p className="text-stone-700">{t('tak.usage.intro')}</p>
        {CARDS.map((card) => {
          const base = `tak.usage.cards.${card.id}`;
          return (
            <section
              key={card.id}
              aria-labelledby={`usage-${card.id}`}
              className="flex flex-col gap-3 rounded-lg border border-stone-200 bg-white p-4 shadow-sm"
            >
              <h2 id={`usage-${card.id}`} className="text-lg font-bold">
                {t(`${base}.title`)}
              </h2>
              <div className="mx-auto w-full max-w-xs">
                <EnlargeableImage src={card.image} alt={t(`${base}.image_alt`)} />
              </div>
              <p className="text-stone-800">{t(`${base}.text`)}</p>
              {card.links.length > 0 && (
                <div className="flex flex-col gap-2 sm:flex-row">
                  {card.links.map((link) => (
                    <LinkButton key={link.step} to={stepPath('usage', link.step)}>
                      {t('tak.usage.open_guide', { app: t(`tak.apps.${link.app}`) })}
                    </LinkButton>
                  ))}
                </div>
              )}
            </section>
          );
        })}
      </div>
    </>
  );
}
