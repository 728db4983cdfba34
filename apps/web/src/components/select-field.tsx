import type { ReactNode, SelectHTMLAttributes } from 'react';
import { CONTROL, FieldFrame } from './field-frame';

export interface SelectOption {
  value: string;
  label: string;
}

/** Options under a heading of their own (`<optgroup>`), after the plain `options`. */
export interface SelectOptionGroup {
  label: string;
  options: readonly SelectOption[];
}

function Options({ options }: { options: readonly SelectOption[] }) {
  return options.map((option) => (
    <option key={option.value} value={option.value}>
      {option.label}
    </option>
  ));
}

/** A labelled choice among `options` (a native select: right on every phone). */
export function SelectField({
  label,
  hint,
  error,
  options,
  groups = [],
  className,
  ...select
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'children'> & {
  label: string;
  hint?: ReactNode;
  error?: ReactNode;
  options: readonly SelectOption[];
  groups?: readonly SelectOptionGroup[];
}) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(control) => (
        <select {...control} className={CONTROL} {...select}>
          <Options options={options} />
          {groups.map((group) => (
            <optgroup key={group.label} label={group.label}>
              <Options options={group.options} />
            </optgroup>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}
