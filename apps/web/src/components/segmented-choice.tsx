import type { ReactNode } from 'react';

export interface SegmentedChoiceProps<T extends string | number> {
  legend: ReactNode;
  legendClassName: string;
  /** The radio group's name. */
  name: string;
  options: readonly { value: T; label: ReactNode }[];
  value: T;
  onChange: (value: T) => void;
  /** The fieldset's own classes (its margin). */
  className?: string;
  /** The grid the buttons sit in (columns per screen size). */
  gridClassName: string;
}

/**
 * One choice of a few, as a row of buttons: radio inputs (so the keyboard and screen readers treat
 * them as one group), each inside a label styled as a button, the chosen one filled.
 */
export function SegmentedChoice<T extends string | number>({
  legend,
  legendClassName,
  name,
  options,
  value,
  onChange,
  className,
  gridClassName,
}: SegmentedChoiceProps<T>) {
  return (
    <fieldset className={className}>
      <legend className={legendClassName}>{legend}</legend>
      <div className={`mt-2 grid gap-2 ${gridClassName}`}>
        {options.map((option) => (
          <label
            key={option.value}
            className="flex min-h-11 cursor-pointer items-center justify-center rounded-md border border-emerald-800 px-3 text-emerald-900 has-checked:bg-emerald-800 has-checked:text-white has-focus-visible:outline-3 has-focus-visible:outline-amber-500"
          >
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={value === option.value}
              onChange={() => {
                onChange(option.value);
              }}
              className="sr-only"
            />
            {option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
