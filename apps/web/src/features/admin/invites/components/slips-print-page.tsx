import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { Button, LinkButton } from '../../../../components/button';
import { SelectField } from '../../../../components/select-field';
import { errorText } from '../../../../lib/error-text';
import { LANGUAGES, type Language } from '../../../../lib/i18n';
import { formatDateTime } from '../../../../lib/format';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import { batchQueryOptions } from '../api/bulk';
import { PrintSlip } from './print-slip';
import './slips-print.css';

/** Slips on one A4 sheet: 2 across, 4 down. */
export const SLIPS_PER_SHEET = 8;

export function sheetsOf<T>(slips: readonly T[]): T[][] {
  const sheets: T[][] = [];
  for (let start = 0; start < slips.length; start += SLIPS_PER_SHEET) {
    sheets.push(slips.slice(start, start + SLIPS_PER_SHEET));
  }
  return sheets;
}

function isLanguage(value: string): value is Language {
  return LANGUAGES.some((language) => language.code === value);
}

/**
 * /app/admin/user-management/bulk/{batchId}/print: the slips nobody has used yet, as A4 sheets
 * to print and cut, in the language chosen here (the member's, not necessarily the admin's).
 * Outside the app's frame: on paper there is nothing but the sheets.
 */
export function SlipsPrintPage() {
  const { t: tScreen, i18n } = useTranslation(ONBOARDING_NS);
  const { batchId = '' } = useParams();
  const batch = useQuery(batchQueryOptions(batchId, false));
  const [language, setLanguage] = useState<Language>(
    isLanguage(i18n.resolvedLanguage ?? '') ? (i18n.resolvedLanguage as Language) : 'en',
  );
  // The chosen language's texts, loaded once (the page's own language is loaded already).
  const texts = useQuery({
    queryKey: ['translations', language, ONBOARDING_NS],
    queryFn: async () => {
      await i18n.reloadResources([language], [ONBOARDING_NS, 'dynamic']);
      return true;
    },
    staleTime: Infinity,
  });
  const t = i18n.getFixedT(language, ONBOARDING_NS);
  // The deployment's one name (its branding), in the slips' language.
  const deployment = i18n.getFixedT(language, 'dynamic')('deployment_name');
  const unused = batch.data?.slips.filter((slip) => slip.state === 'issued') ?? [];
  const left = (batch.data?.slips.length ?? 0) - unused.length;

  return (
    <div className="min-h-dvh bg-stone-100 text-stone-900 print:bg-white">
      <div className="mx-auto flex max-w-3xl flex-col gap-3 px-4 py-4 print:hidden">
        <h1 className="text-2xl font-bold">{tScreen('print.title')}</h1>
        <p className="text-stone-700">{tScreen('print.intro')}</p>
        <SelectField
          label={tScreen('print.language')}
          value={language}
          options={LANGUAGES.map((entry) => ({ value: entry.code, label: entry.label }))}
          onChange={(event) => {
            if (isLanguage(event.target.value)) setLanguage(event.target.value);
          }}
        />
        {batch.isError && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
            {tScreen('batch.failed', { message: errorText(tScreen, batch.error) })}
          </p>
        )}
        {batch.data !== undefined && (
          <p role="status">
            {tScreen('print.count', {
              count: unused.length,
              sheets: tScreen('print.sheets', { count: sheetsOf(unused).length }),
            })}
            {left > 0 && ` ${tScreen('print.left_out', { count: left })}`}
          </p>
        )}
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button
            disabled={unused.length === 0 || texts.data !== true}
            onClick={() => {
              window.print();
            }}
          >
            {tScreen('print.print')}
          </Button>
          <LinkButton variant="secondary" to={paths.admin.batch.href(batchId)}>
            {tScreen('print.back')}
          </LinkButton>
        </div>
      </div>
      {batch.data !== undefined && texts.data === true && (
        <div className="slip-sheets" lang={language}>
          {sheetsOf(unused).map((sheet) => (
            <section key={sheet[0]?.invite_code} className="slip-sheet">
              {sheet.map((slip) => (
                <PrintSlip
                  key={slip.invite_code}
                  slip={slip}
                  deployment={deployment}
                  validUntil={formatDateTime(batch.data.expires_at, language)}
                  t={t}
                />
              ))}
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
