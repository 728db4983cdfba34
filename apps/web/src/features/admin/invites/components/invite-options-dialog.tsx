import { useId, useState, type SubmitEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  INVITE_DEFAULT_MAX_USES,
  INVITE_LABEL_MAX_LENGTH,
  takRoleSchema,
  takTeamSchema,
  type CreateInviteBody,
} from '@callsign/contract';
import { Button } from '../../../../components/button';
import { Dialog } from '../../../../components/dialog';
import { PresetFields } from '../../../../components/preset-fields';
import { TextField } from '../../../../components/text-field';
import { errorText } from '../../../../lib/error-text';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { defaultInviteExpiry } from '../api/invites';

interface Draft {
  label: string;
  /** A `datetime-local` value, in the admin's own time zone; '' for none. */
  expires: string;
  maxUses: string;
  autoApprove: boolean;
  team: string;
  role: string;
}

const EMPTY: Draft = {
  label: '',
  expires: '',
  maxUses: '',
  autoApprove: false,
  team: '',
  role: '',
};

/** A moment as a `datetime-local` field holds it: the admin's own time zone, to the minute. */
function localInput(at: number): string {
  const date = new Date(at);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The form as it opens: the safe defaults of "Create new code" (7 days, 25 people) filled in. */
export function defaultDraft(now: number): Draft {
  return {
    ...EMPTY,
    expires: localInput(defaultInviteExpiry(now)),
    maxUses: String(INVITE_DEFAULT_MAX_USES),
  };
}

type Problem = 'expires_past' | 'max_uses';

/** The request body of a draft, or what is wrong with it. */
export function inviteOptionsOf(
  draft: Draft,
  now: number,
): { body: CreateInviteBody } | { problem: Problem } {
  const expires = draft.expires === '' ? null : new Date(draft.expires).getTime();
  if (expires !== null && !(expires > now)) return { problem: 'expires_past' };
  const maxUses = draft.maxUses.trim() === '' ? null : Number(draft.maxUses);
  if (maxUses !== null && !(Number.isInteger(maxUses) && maxUses >= 1)) {
    return { problem: 'max_uses' };
  }
  const team = takTeamSchema.safeParse(draft.team);
  const role = takRoleSchema.safeParse(draft.role);
  return {
    body: {
      label: draft.label.trim() === '' ? null : draft.label.trim(),
      expires_at: expires === null ? null : new Date(expires).toISOString(),
      max_uses: maxUses,
      auto_approve: draft.autoApprove,
      team: team.success ? team.data : null,
      role: role.success ? role.data : null,
    },
  };
}

/**
 * "Create with options": label, expiry, use limit, auto-approval and the preset its members get,
 * each optional. `onCreate` sends the body; the dialog stays open with the reason on failure.
 */
export function InviteOptionsDialog({
  pending,
  error,
  onCreate,
  onClose,
}: {
  pending: boolean;
  error: unknown;
  onCreate: (body: CreateInviteBody) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation(ONBOARDING_NS);
  const formId = useId();
  const [draft, setDraft] = useState<Draft>(() => defaultDraft(Date.now()));
  const [problem, setProblem] = useState<Problem | null>(null);
  const change = (patch: Partial<Draft>) => {
    setProblem(null);
    setDraft((current) => ({ ...current, ...patch }));
  };
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = inviteOptionsOf(draft, Date.now());
    if ('problem' in result) setProblem(result.problem);
    else onCreate(result.body);
  };
  return (
    <Dialog
      open
      onOpenChange={(open) => {
        if (!open && !pending) onClose();
      }}
      title={t('invite.title')}
      description={t('invite.intro')}
      footer={
        <>
          <Button variant="secondary" disabled={pending} onClick={onClose}>
            {t('invite.cancel')}
          </Button>
          <Button type="submit" form={formId} disabled={pending}>
            {pending ? t('invite.creating') : t('invite.create')}
          </Button>
        </>
      }
    >
      <form id={formId} className="flex flex-col gap-4" noValidate onSubmit={submit}>
        <TextField
          label={t('invite.label')}
          hint={t('invite.label_hint')}
          value={draft.label}
          maxLength={INVITE_LABEL_MAX_LENGTH}
          autoComplete="off"
          onChange={(event) => {
            change({ label: event.target.value });
          }}
        />
        <TextField
          label={t('invite.expires')}
          hint={t('invite.expires_hint')}
          type="datetime-local"
          value={draft.expires}
          error={problem === 'expires_past' ? t('invite.expires_past') : null}
          onChange={(event) => {
            change({ expires: event.target.value });
          }}
        />
        <TextField
          label={t('invite.max_uses')}
          hint={t('invite.max_uses_hint')}
          type="number"
          inputMode="numeric"
          min={1}
          value={draft.maxUses}
          error={problem === 'max_uses' ? t('invite.max_uses_invalid') : null}
          onChange={(event) => {
            change({ maxUses: event.target.value });
          }}
        />
        <PresetFields
          team={draft.team}
          role={draft.role}
          noneLabel={t('invite.preset_default')}
          labels={{ team: t('preset.team'), role: t('preset.role') }}
          onChange={(preset) => {
            change(preset);
          }}
        />
        <label className="flex min-h-11 items-start gap-3">
          <input
            type="checkbox"
            className="mt-1 size-5 accent-emerald-800"
            checked={draft.autoApprove}
            onChange={(event) => {
              change({ autoApprove: event.target.checked });
            }}
          />
          <span>
            <span className="font-semibold">{t('invite.auto_approve')}</span>
            <span className="block text-sm text-stone-600">{t('invite.auto_approve_hint')}</span>
          </span>
        </label>
        {error !== null && error !== undefined && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
            {t('invite.failed', { message: errorText(t, error) })}
          </p>
        )}
      </form>
    </Dialog>
  );
}
