import { useTranslation } from 'react-i18next';

/** /app/services/tak/*: placeholder until the TAK guides issue fills it; a lazy chunk. */
export function TakArea() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto w-full max-w-2xl px-4 py-6">
      <h1 className="text-2xl font-bold">{t('tak_card.title')}</h1>
      <p className="mt-3 text-stone-700">{t('placeholder.coming_soon')}</p>
    </div>
  );
}

export default TakArea;
