import { useQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { takRoleSchema, takTeamSchema } from '@callsign/contract';
import { Button } from '../../../../components/button';
import { PresetFields } from '../../../../components/preset-fields';
import { errorText } from '../../../../lib/error-text';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { presetQueryOptions, useSetPreset } from '../api/presets';

/**
 * A member's TAK team and role in the user dialog: what their TAK packages carry from the next
 * download on. Saved on its own, apart from the dialog's other actions.
 */
function PresetForm({ callsign }: { callsign: string }) {
  const { t } = useTranslation(ONBOARDING_NS);
  const stored = useQuery(presetQueryOptions(callsign));
  const save = useSetPreset(callsign);
  const [edited, setEdited] = useState<{ team: string; role: string } | null>(null);
  if (stored.isPending) return <p className="text-stone-700">{t('preset.loading')}</p>;
  if (stored.isError) {
    return (
      <p role="alert" className="text-red-800">
        {t('preset.load_failed', { message: errorText(t, stored.error) })}
      </p>
    );
  }
  const shown = edited ?? stored.data;
  const team = takTeamSchema.safeParse(shown.team);
  const role = takRoleSchema.safeParse(shown.role);
  const changed = shown.team !== stored.data.team || shown.role !== stored.data.role;
  return (
    <form
      className="flex flex-col gap-3 rounded-md border border-stone-200 p-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (!team.success || !role.success) return;
        save.mutate(
          { team: team.data, role: role.data },
          {
            onSuccess: () => {
              setEdited(null);
            },
          },
        );
      }}
    >
      <h3 className="font-semibold">{t('preset.title')}</h3>
      <PresetFields
        team={shown.team}
        role={shown.role}
        disabled={save.isPending}
        labels={{ team: t('preset.team'), role: t('preset.role') }}
        onChange={(preset) => {
          save.reset();
          setEdited(preset);
        }}
      />
      <p className="text-sm text-stone-600">{t('preset.hint')}</p>
      <Button type="submit" variant="secondary" disabled={!changed || save.isPending}>
        {save.isPending ? t('preset.saving') : t('preset.save')}
      </Button>
      <p
        role="status"
        aria-live="polite"
        className={save.isSuccess ? 'text-emerald-900' : 'sr-only'}
      >
        {save.isSuccess ? t('preset.saved', save.data) : ''}
      </p>
      {save.isError && (
        <p role="alert" className="text-red-800">
          {t('preset.failed', { message: errorText(t, save.error) })}
        </p>
      )}
    </form>
  );
}

/** The preset form, with its texts loaded on first use. */
export function PresetEditor({ callsign }: { callsign: string }) {
  return (
    <Suspense fallback={null}>
      <PresetForm callsign={callsign} />
    </Suspense>
  );
}
