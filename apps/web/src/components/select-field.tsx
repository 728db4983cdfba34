import type { ReactNode, SelectHTMLAttributes } from 'react';
import { CONTROL, FieldFrame } from './field-frame';

export interface SelectOption {
  value: string;
  label: string;
}

/** A labelled choice among `options` (a native select: right on every phone). */
export function SelectField({
  label,
  hint,
  error,
  options,
  className,
  ...select
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'children'> & {
  label: string;
  hint?: ReactNode;
  error?: ReactNode;
  options: readonly SelectOption[];
}) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(control) => (
        <select {...control} className={CONTROL} {...select}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}
