import { useTranslation } from 'react-i18next';
import { textList } from '../../../lib/text-list';

/** The guides with steps for replacing an installed key (`keyguide.replace.*`). */
export const REPLACE_GUIDES = ['windows', 'macos', 'linux', 'android', 'ios', 'tak'] as const;

/**
 * How to put a new key in the place of the old one, on each system and in the TAK apps: install
 * the new one as the first time, then remove the old one. Folded, one system at a time.
 */
export function ReplaceKeyGuide({ callsign }: { callsign: string }) {
  const { t } = useTranslation();
  return (
    <section className="mt-5">
      <h3 className="font-bold">{t('keyguide.replace.title')}</h3>
      <p className="mt-1 text-stone-700">{t('keyguide.replace.intro')}</p>
      <div className="mt-2 flex flex-col gap-2">
        {REPLACE_GUIDES.map((guide) => (
          <details key={guide} className="rounded border border-stone-200 px-3 py-1">
            <summary className="min-h-11 cursor-pointer content-center font-semibold">
              {t(`keyguide.replace.${guide}.title`)}
            </summary>
            <ol className="mt-1 mb-2 list-decimal space-y-1 pl-6 text-stone-800">
              {textList(
                t(`keyguide.replace.${guide}.steps`, { callsign, returnObjects: true }),
              ).map((step, index) => (
                <li key={index}>{step}</li>
              ))}
            </ol>
          </details>
        ))}
      </div>
    </section>
  );
}
