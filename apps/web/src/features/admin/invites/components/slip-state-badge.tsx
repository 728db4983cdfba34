import { useTranslation } from 'react-i18next';
import type { SlipState } from '@callsign/contract';
import { ONBOARDING_NS } from '../../../../lib/onboarding';

const COLOURS: Record<SlipState, string> = {
  issued: 'bg-stone-200 text-stone-900',
  enrolled: 'bg-sky-100 text-sky-900',
  key: 'bg-emerald-100 text-emerald-900',
  revoked: 'bg-red-100 text-red-900',
  void: 'bg-stone-300 text-stone-800',
  expired: 'bg-amber-100 text-amber-900',
};

/** Where a slip stands, as a coloured word. */
export function SlipStateBadge({ state }: { state: SlipState }) {
  const { t } = useTranslation(ONBOARDING_NS);
  return (
    <span className={`rounded-full px-2 py-0.5 text-sm font-medium ${COLOURS[state]}`}>
      {t(`batch.state.${state}`)}
    </span>
  );
}
