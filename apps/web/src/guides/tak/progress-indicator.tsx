import { useTranslation } from 'react-i18next';

/** "Step 2 of 5" with one segment per step, the done ones filled. */
export function ProgressIndicator({ current, total }: { current: number; total: number }) {
  const { t } = useTranslation();
  const label = t('tak.nav.progress', { current, total });
  return (
    <div className="flex flex-col gap-1">
      <p className="text-sm font-semibold text-stone-700">{label}</p>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={1}
        aria-valuemax={total}
        aria-valuenow={current}
        className="flex gap-1"
      >
        {Array.from({ length: total }, (_, index) => (
          <span
            key={index}
            className={`h-2 flex-1 rounded-full ${index < current ? 'bg-emerald-700' : 'bg-stone-300'}`}
          />
        ))}
      </div>
    </div>
  );
}
