import { useTranslation } from 'react-i18next';
import { TakCard } from '../../../components/tak-card';

/** /app/admin/*: placeholder until the admin issue fills it; a lazy chunk. */
export function AdminArea() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto flex w-full max-w-2xl flex-col gap-5 px-4 py-6">
      <h1 className="text-2xl font-bold">{t('admin.title')}</h1>
      <p className="text-stone-700">{t('placeholder.coming_soon')}</p>
      <TakCard />
    </div>
  );
}

export default AdminArea;
