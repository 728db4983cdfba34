import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import {
  BULK_DEFAULT_VALID_HOURS,
  BULK_MAX_CALLSIGNS,
  DEFAULT_PRESET,
  takRoleSchema,
  takTeamSchema,
  type CallsignProblem,
} from '@callsign/contract';
import { Button } from '../../../../components/button';
import { PresetFields } from '../../../../components/preset-fields';
import { SelectField } from '../../../../components/select-field';
import { TextAreaField } from '../../../../components/text-area-field';
import { errorText } from '../../../../lib/error-text';
import { usePaused } from '../../../../lib/use-paused';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import { validateCallsign } from '../../../../lib/validation';
import { checkQueryOptions, useCreateBatch } from '../api/bulk';
import { readCallsigns } from '../callsign-list';
import { TitledPage } from '../../../../components/titled-page';

const VALIDITY_HOURS = [12, 24, 72, 168, 336, 720] as const;
/** The server is asked about the list once typing has paused this long. */
const CHECK_DELAY_MS = 400;

export interface PreviewEntry {
  callsign: string;
  problem: CallsignProblem | null;
}

/**
 * What can be told without the server: callsigns that break the rules, and repeats (in any
 * case). The server's answer adds `taken`.
 */
export function localPreview(callsigns: readonly string[]): PreviewEntry[] {
  const seen = new Set<string>();
  return callsigns.map((callsign) => {
    if (validateCallsign(callsign) !== undefined) return { callsign, problem: 'invalid' };
    const key = callsign.toLowerCase();
    if (seen.has(key)) return { callsign, problem: 'duplicate' };
    seen.add(key);
    return { callsign, problem: null };
  });
}

const CHIP: Record<CallsignProblem | 'ok', string> = {
  ok: 'bg-emerald-100 text-emerald-900',
  invalid: 'bg-red-100 text-red-900',
  duplicate: 'bg-amber-100 text-amber-900',
  taken: 'bg-red-100 text-red-900',
};

/**
 * /app/admin/user-management/bulk: slips for a whole unit. Paste callsigns or upload a CSV, see
 * which cannot be used (invalid, listed twice, taken) before anything is made, choose the preset
 * and how long the slips stay valid, then create them all at once.
 */
export function BulkPage() {
  const { t } = useTranslation(ONBOARDING_NS);
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | null>(null);
  const [preset, setPreset] = useState<{ team: string; role: string }>(DEFAULT_PRESET);
  const [validHours, setValidHours] = useState<number>(BULK_DEFAULT_VALID_HOURS);
  const create = useCreateBatch();
  /** Leave out what cannot be used and make the rest (the preview says which and why). */
  const [skipProblems, setSkipProblems] = useState(false);

  const callsigns = useMemo(() => readCallsigns(text), [text]);
  const local = useMemo(() => localPreview(callsigns), [callsigns]);
  const tooMany = callsigns.length > BULK_MAX_CALLSIGNS;
  const checkedList = usePaused(callsigns, CHECK_DELAY_MS);
  const checkable = !tooMany && checkedList.length > 0;
  const server = useQuery({ ...checkQueryOptions(checkedList), enabled: checkable });
  const serverCurrent = checkedList === callsigns && server.data !== undefined;
  const preview: PreviewEntry[] = serverCurrent ? server.data : local;
  const problems = preview.filter((entry) => entry.problem !== null).length;
  const usable = preview.filter((entry) => entry.problem === null).map((entry) => entry.callsign);
  const blocked = problems > 0 && !skipProblems;
  const ready = usable.length > 0 && !tooMany && serverCurrent && !blocked && !create.isPending;
  const team = takTeamSchema.safeParse(preset.team);
  const role = takRoleSchema.safeParse(preset.role);

  return (
    <TitledPage title={t('bulk.title')} back={paths.admin.codeList.path}>
      <p className="text-stone-700">{t('bulk.intro')}</p>
      <TextAreaField
        label={t('bulk.callsigns')}
        hint={t('bulk.callsigns_hint', { max: BULK_MAX_CALLSIGNS })}
        rows={8}
        value={text}
        spellCheck={false}
        autoCapitalize="none"
        onChange={(event) => {
          create.reset();
          setFileName(null);
          setText(event.target.value);
        }}
      />
      <div className="flex flex-col gap-2">
        <label className="font-semibold" htmlFor="bulk-file">
          {t('bulk.file')}
        </label>
        <input
          id="bulk-file"
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          className="min-h-11 text-base file:mr-3 file:min-h-11 file:rounded-md file:border file:border-emerald-800 file:bg-white file:px-4 file:font-semibold file:text-emerald-900"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file === undefined) return;
            void file.text().then((content) => {
              create.reset();
              setFileName(file.name);
              setText(content);
            });
          }}
        />
        {fileName !== null && (
          <p className="text-sm text-stone-700">{t('bulk.file_read', { name: fileName })}</p>
        )}
      </div>

      <section aria-labelledby="preview-title" className="flex flex-col gap-2">
        <h2 id="preview-title" className="text-xl font-bold">
          {t('bulk.preview')}
        </h2>
        <p role="status" aria-live="polite" className="text-stone-700">
          {callsigns.length === 0
            ? t('bulk.preview_empty')
            : tooMany
              ? t('bulk.too_many', { count: callsigns.length, max: BULK_MAX_CALLSIGNS })
              : !serverCurrent
                ? t('bulk.checking', { count: callsigns.length })
                : t('bulk.summary', { count: callsigns.length, problems })}
        </p>
        {server.isError && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
            {t('bulk.check_failed', { message: errorText(t, server.error) })}
          </p>
        )}
        {preview.length > 0 && (
          <ul aria-label={t('bulk.preview')} className="flex flex-wrap gap-2">
            {preview.map((entry, index) => (
              <li
                // The same callsign may be listed twice: its place tells them apart.
                key={`${index}-${entry.callsign}`}
                className={`rounded-md px-2 py-1 font-mono text-sm ${CHIP[entry.problem ?? 'ok']}`}
              >
                {entry.callsign}
                {entry.problem !== null && (
                  <span className="ml-1 font-sans font-semibold">
                    ({t(`bulk.problem.${entry.problem}`)})
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <PresetFields
        team={preset.team}
        role={preset.role}
        labels={{ team: t('preset.team'), role: t('preset.role') }}
        onChange={setPreset}
      />
      <SelectField
        label={t('bulk.valid')}
        hint={t('bulk.valid_hint')}
        value={String(validHours)}
        options={VALIDITY_HOURS.map((hours) => ({
          value: String(hours),
          label:
            hours % 24 === 0 && hours >= 48
              ? t('bulk.days', { count: hours / 24 })
              : t('bulk.hours', { count: hours }),
        }))}
        onChange={(event) => {
          setValidHours(Number(event.target.value));
        }}
      />
      {serverCurrent && problems > 0 && usable.length > 0 && (
        <div className="flex flex-col gap-1">
          <label className="flex min-h-11 items-start gap-3">
            <input
              type="checkbox"
              className="mt-1 size-5 accent-emerald-800"
              checked={skipProblems}
              onChange={(event) => {
                create.reset();
                setSkipProblems(event.target.checked);
              }}
            />
            <span className="font-semibold">
              {t('bulk.skip', { count: problems, usable: usable.length })}
            </span>
          </label>
          {blocked && <p className="text-sm text-stone-700">{t('bulk.blocked')}</p>}
        </div>
      )}
      {create.isError && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {t('bulk.create_failed', { message: errorText(t, create.error) })}
        </p>
      )}
      <Button
        disabled={!ready || !team.success || !role.success}
        onClick={() => {
          if (!team.success || !role.success) return;
          create.mutate(
            { callsigns: usable, team: team.data, role: role.data, valid_hours: validHours },
            {
              onSuccess: (batch) => {
                void navigate(paths.admin.batch.href(batch.batch_id));
              },
            },
          );
        }}
      >
        {create.isPending ? t('bulk.creating') : t('bulk.create', { count: usable.length })}
      </Button>
    </TitledPage>
  );
}
