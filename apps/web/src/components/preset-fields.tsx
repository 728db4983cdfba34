import { TAK_ROLES, TAK_TEAMS } from '@callsign/contract';
import { SelectField, type SelectOption } from './select-field';

const teams: SelectOption[] = TAK_TEAMS.map((team) => ({ value: team, label: team }));
const roles: SelectOption[] = TAK_ROLES.map((role) => ({ value: role, label: role }));

/**
 * Team colour and role, among ATAK's own (their names as ATAK shows them). With `noneLabel`
 * each offers a first choice "" (the default preset).
 */
export function PresetFields({
  team,
  role,
  onChange,
  labels,
  noneLabel,
  disabled = false,
}: {
  team: string;
  role: string;
  onChange: (preset: { team: string; role: string }) => void;
  labels: { team: string; role: string };
  noneLabel?: string;
  disabled?: boolean;
}) {
  const none = noneLabel === undefined ? [] : [{ value: '', label: noneLabel }];
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <SelectField
        label={labels.team}
        value={team}
        disabled={disabled}
        options={[...none, ...teams]}
        onChange={(event) => {
          onChange({ team: event.target.value, role });
        }}
      />
      <SelectField
        label={labels.role}
        value={role}
        disabled={disabled}
        options={[...none, ...roles]}
        onChange={(event) => {
          onChange({ team, role: event.target.value });
        }}
      />
    </div>
  );
}
