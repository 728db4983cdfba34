import { useTranslation } from 'react-i18next';
import { paths } from '../lib/paths';
import { LinkButton } from './button';

/** Any path no route owns. */
export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto w-full max-w-md px-4 py-8">
      <h1 className="text-2xl font-bold">{t('notfound.title')}</h1>
      <p className="mt-3 text-stone-700">{t('notfound.details')}</p>
      <LinkButton to={paths.home.path} className="mt-6 w-full sm:w-auto">
        {t('notfound.return')}
      </LinkButton>
    </div>
  );
}
