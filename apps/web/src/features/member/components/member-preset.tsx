import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { ONBOARDING_NS } from '../../../lib/onboarding';
import { myPresetQueryOptions } from '../api/preset';

function PresetRows() {
  const { t } = useTranslation(ONBOARDING_NS);
  const preset = useQuery(myPresetQueryOptions());
  if (preset.data === undefined) return null;
  return (
    <>
      <dt className="font-semibold">{t('preset.team')}</dt>
      <dd>{preset.data.team}</dd>
      <dt className="font-semibold">{t('preset.role')}</dt>
      <dd>{preset.data.role}</dd>
    </>
  );
}

/** The member's TAK team and role, as rows of their details (nothing until they are known). */
export function MemberPreset() {
  return (
    <Suspense fallback={null}>
      <PresetRows />
    </Suspense>
  );
}
