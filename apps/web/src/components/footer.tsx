import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { GlobeIcon } from './globe-icon';

// Radix (menus, dialogs, focus management) is not needed to paint a page: each part loads when
// it is first used (the menu's code is fetched as soon as the pointer or focus reaches it).
const loadLanguageMenu = () => import('./language-menu');
const LanguageMenu = lazy(loadLanguageMenu);
const loadInfoDialogs = () => import('./info-dialogs');
const MtlsDialog = lazy(async () => ({ default: (await loadInfoDialogs()).MtlsDialog }));
const PrivacyDialog = lazy(async () => ({ default: (await loadInfoDialogs()).PrivacyDialog }));

/** Looks and reads like the menu's trigger; activating it loads the menu and opens it. */
function LanguageMenuPlaceholder({ onActivate }: { onActivate?: () => void }) {
  const { t, i18n } = useTranslation();
  const label = i18n.resolvedLanguage === 'fi' ? 'Suomi' : 'English';
  const preload = () => {
    void loadLanguageMenu();
  };
  return (
    <button
      type="button"
      aria-haspopup="menu"
      aria-expanded={false}
      aria-label={`${label} – ${t('footer.language')}`}
      onPointerEnter={preload}
      onFocus={preload}
      onClick={onActivate}
      className="inline-flex min-h-11 items-center gap-2 rounded border border-stone-400 px-3 py-1 text-sm hover:bg-stone-200 focus-visible:outline-3 focus-visible:outline-amber-500"
    >
      <GlobeIcon />
      {label}
    </button>
  );
}

function Menu() {
  const [activated, setActivated] = useState(false);
  if (!activated) {
    return (
      <LanguageMenuPlaceholder
        onActivate={() => {
          setActivated(true);
        }}
      />
    );
  }
  return (
    <Suspense fallback={<LanguageMenuPlaceholder />}>
      <LanguageMenu defaultOpen />
    </Suspense>
  );
}

function Notices() {
  const { t } = useTranslation();
  return (
    <div className="space-y-1 text-sm text-stone-600">
      <p>{t('dynamic:footer.copyright', { year: new Date().getFullYear() })}</p>
      <p>{t('dynamic:footer.server_source')}</p>
    </div>
  );
}

const linkButton =
  'min-h-11 rounded px-1 text-sm text-emerald-900 underline underline-offset-4 hover:text-emerald-700 focus-visible:outline-3 focus-visible:outline-amber-500';

/** Footer of the public face: notices, the privacy policy dialog, the language menu. */
export function PublicFooter() {
  const { t } = useTranslation();
  const [privacyOpen, setPrivacyOpen] = useState(false);
  return (
    <footer className="border-t border-stone-200 bg-stone-100">
      <div className="mx-auto flex max-w-3xl flex-col gap-3 px-4 py-5 sm:flex-row sm:items-end sm:justify-between">
        <Notices />
        <div className="flex flex-wrap items-center gap-3">
          <button
            type="button"
            className={linkButton}
            onClick={() => {
              setPrivacyOpen(true);
            }}
          >
            {t('footer.privacy')}
          </button>
          <Menu />
        </div>
      </div>
      {privacyOpen && (
        <Suspense fallback={null}>
          <PrivacyDialog open onOpenChange={setPrivacyOpen} />
        </Suspense>
      )}
    </footer>
  );
}

/** Footer on the mTLS face (signed in with a key): notices, what a key is, the language menu. */
export function AuthenticatedFooter() {
  const { t } = useTranslation();
  const [mtlsOpen, setMtlsOpen] = useState(false);
  return (
    <footer className="border-t border-stone-200 bg-stone-100">
      <div className="mx-auto flex max-w-3xl flex-col gap-3 px-4 py-5 sm:flex-row sm:items-end sm:justify-between">
        <Notices />
        <div className="flex flex-wrap items-center gap-3">
          <span className="text-sm text-stone-700">{t('footer.signed_in_with_key')}</span>
          <button
            type="button"
            className={linkButton}
            onClick={() => {
              setMtlsOpen(true);
            }}
          >
            {t('footer.what_is_key')}
          </button>
          <Menu />
        </div>
      </div>
      {mtlsOpen && (
        <Suspense fallback={null}>
          <MtlsDialog open onOpenChange={setMtlsOpen} />
        </Suspense>
      )}
    </footer>
  );
}
