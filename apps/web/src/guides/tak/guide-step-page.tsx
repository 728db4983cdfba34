import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { LinkButton } from '../../components/button';
import { Navbar } from '../../components/navbar';
import { NotFoundPage } from '../../components/not-found-page';
import { ConnectTakCard } from '../../features/tak/components/connect-tak-card';
import { TakDownloadButton } from '../../features/tak/components/tak-download';
import { GuideCardView } from './guide-card';
import { ProgressIndicator } from './progress-indicator';
import { TAK_GUIDES_NS, findStep, sectionPath, type GuideSection } from './structure';

/** One step of a TAK guide: navbar, progress, the step's cards, back and forward. */
export function GuideStepPage({ section }: { section: GuideSection }) {
  const { t } = useTranslation();
  // The guides' text is its own namespace, fetched when the first guide page opens.
  const { t: tg } = useTranslation(TAK_GUIDES_NS);
  const { step: stepId = '' } = useParams();
  const place = findStep(section, stepId);
  if (place === undefined) return <NotFoundPage />;
  const { step, platform, number, total, backPath, forwardPath, isLast } = place;
  const base = `${section}.${step.id}`;
  const forwardLabel = isLast
    ? t(section === 'usage' ? 'tak.nav.finish' : 'tak.nav.done')
    : t('tak.nav.next');
  return (
    <>
      <Navbar
        title={t(`tak.${section}.guide_title`, { app: t(`tak.apps_short.${platform}`) })}
        backUrl={sectionPath(section)}
        backLabel={t(`tak.${section}.back_to_list`)}
      />
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 px-4 py-5">
        <ProgressIndicator current={number} total={total} />
        <h1 className="text-2xl font-bold">{tg(`${base}.title`)}</h1>
        <p className="text-stone-700">{tg(`${base}.intro`)}</p>
        {step.cards.map((card, index) => (
          <GuideCardView
            key={`${step.id}-${card.id}`}
            base={`${base}.cards.${card.id}`}
            image={card.image}
            defaultOpen={index === 0 || card.download === true}
          >
            {card.enroll === true && <ConnectTakCard settingsDownload="below" />}
            {card.download === true && (
              <TakDownloadButton variant="primary" className="w-full sm:w-auto" />
            )}
          </GuideCardView>
        ))}
        <nav
          aria-label={t('tak.nav.steps')}
          className="mt-2 flex flex-col-reverse gap-2 sm:flex-row sm:justify-between"
        >
          <LinkButton to={backPath} variant="secondary">
            <span aria-hidden="true">←</span> {t('tak.nav.back')}
          </LinkButton>
          <LinkButton to={forwardPath}>
            {forwardLabel} <span aria-hidden="true">→</span>
          </LinkButton>
        </nav>
      </div>
    </>
  );
}
