import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../lib/i18n';
import { GlobeIcon } from './globe-icon';

/** The language switch (en "English", fi "Suomi"); i18next stores the choice locally. */
export function LanguageMenu({ defaultOpen = false }: { defaultOpen?: boolean }) {
  const { t, i18n } = useTranslation();
  const current = LANGUAGES.find((language) => language.code === i18n.resolvedLanguage);
  return (
    <DropdownMenu.Root defaultOpen={defaultOpen}>
      <DropdownMenu.Trigger
        className="inline-flex min-h-11 items-center gap-2 rounded border border-stone-400 px-3 py-1 text-sm hover:bg-stone-200 focus-visible:outline-3 focus-visible:outline-amber-500"
        // The accessible name holds the visible text too (WCAG 2.5.3 label in name).
        aria-label={`${current?.label ?? 'English'} – ${t('footer.language')}`}
      >
        <GlobeIcon />
        {current?.label ?? 'English'}
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          sideOffset={4}
          className="z-50 min-w-36 rounded-md border border-stone-200 bg-white p-1 text-stone-900 shadow-lg"
        >
          <DropdownMenu.RadioGroup
            value={current?.code ?? 'en'}
            onValueChange={(code) => {
              void i18n.changeLanguage(code);
            }}
          >
            {LANGUAGES.map((language) => (
              <DropdownMenu.RadioItem
                key={language.code}
                value={language.code}
                lang={language.code}
                className="flex min-h-11 cursor-pointer items-center gap-2 rounded px-3 outline-none data-[highlighted]:bg-emerald-100"
              >
                <span className="w-4" aria-hidden="true">
                  <DropdownMenu.ItemIndicator>✓</DropdownMenu.ItemIndicator>
                </span>
                {language.label}
              </DropdownMenu.RadioItem>
            ))}
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

export default LanguageMenu;
