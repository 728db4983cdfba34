import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navbar } from './navbar';

/**
 * A page below an area's home (the admin pages, the bulk pages): the navbar with the way back,
 * the title, the page.
 */
export function TitledPage({
  title,
  back,
  children,
  wide = false,
}: {
  title: string;
  back: string;
  children: ReactNode;
  /** A page of tables: the laptop's width, not a column of text. */
  wide?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Navbar title={title} backUrl={back} backLabel={t('nav.back')} />
      <div
        className={`mx-auto flex w-full ${wide ? 'max-w-5xl' : 'max-w-2xl'} flex-col gap-5 px-4 py-6`}
      >
        <h1 className="text-2xl font-bold break-words">{title}</h1>
        {children}
      </div>
    </>
  );
}
