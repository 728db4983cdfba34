import { useTranslation } from 'react-i18next';
import { EnlargeableImage } from '../../../components/enlarge-image-dialog';
import { textList } from '../../../lib/text-list';
import certificatePrompt from '../illustrations/browser-certificate-prompt.svg';
import phoneKeyFile from '../illustrations/phone-key-file.svg';

/** The guide keys of the writers' `keyguide.os.*`. */
export type GuideOs = 'windows' | 'macos' | 'android' | 'ios' | 'linux';

/** The install guide of one OS from `keyguide.os.{os}`: intro, steps, notes and browsers. */
export function OsGuide({ os, callsign }: { os: GuideOs; callsign: string }) {
  const { t } = useTranslation();
  const base = `keyguide.os.${os}`;
  const options = { callsign, returnObjects: true } as const;
  const steps = textList(t(`${base}.steps`, options));
  const notes = textList(t(`${base}.notes`, options));
  const browsers = textList(t(`${base}.browsers`, options));
  const replace = textList(t(`keyguide.replace.${os}.steps`, options));
  const isPhone = os === 'android' || os === 'ios';
  return (
    <div className="space-y-4 text-stone-800">
      <h2 className="text-xl font-bold">{t(`${base}.title`)}</h2>
      <p>{t(`${base}.intro`, { callsign })}</p>
      <div className="max-w-48">
        <EnlargeableImage
          src={isPhone ? phoneKeyFile : certificatePrompt}
          alt={t(
            isPhone
              ? 'keyguide.illustrations.phoneKeyFile'
              : 'keyguide.illustrations.certificatePrompt',
          )}
        />
      </div>
      <section>
        <h3 className="font-bold">{t('keyguide.page.stepsTitle')}</h3>
        <ol className="mt-2 list-decimal space-y-2 pl-6">
          {steps.map((step, index) => (
            <li key={index}>{step}</li>
          ))}
        </ol>
      </section>
      {notes.length > 0 && (
        <section>
          <h3 className="font-bold">{t('keyguide.page.notesTitle')}</h3>
          <ul className="mt-2 list-disc space-y-2 pl-6">
            {notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </section>
      )}
      {replace.length > 0 && (
        <section>
          <h3 className="font-bold">{t('keyguide.replace.title')}</h3>
          <ol className="mt-2 list-decimal space-y-2 pl-6">
            {replace.map((step, index) => (
              <li key={index}>{step}</li>
            ))}
          </ol>
        </section>
      )}
      {browsers.length > 0 && (
        <section>
          <h3 className="font-bold">{t('keyguide.page.browsersTitle')}</h3>
          <ul className="mt-2 list-disc space-y-1 pl-6">
            {browsers.map((browser, index) => (
              <li key={index}>{browser}</li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

export default OsGuide;
