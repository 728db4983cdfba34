import { useId, type ReactNode } from 'react';

/** Whether React renders something for the node (false, null, undefined and '' render nothing). */
function shows(node: ReactNode): boolean {
  return node !== undefined && node !== null && node !== false && node !== '';
}

/** What a control inside a FieldFrame is given: its id, description and invalid state. */
export interface FieldControlProps {
  id: string;
  'aria-describedby': string | undefined;
  'aria-invalid': boolean;
}

export const CONTROL =
  'min-h-11 w-full rounded-md border border-stone-400 bg-white px-3 py-2 text-lg ' +
  'focus:border-emerald-700 focus:outline-3 focus:outline-amber-500 aria-invalid:border-red-700 ' +
  'disabled:cursor-not-allowed disabled:opacity-60';

/**
 * A labelled form field around any control (a select, a text area), wired as TextField wires its
 * input: the label, an optional hint, the control described by hint and error, the error
 * announced (`role="alert"`).
 */
export function FieldFrame({
  label,
  hint,
  error,
  className = '',
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: ReactNode;
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = useId();
  const errorId = useId();
  const describedBy = [shows(hint) ? hintId : null, shows(error) ? errorId : null]
    .filter((value) => value !== null)
    .join(' ');
  return (
    <div className={`flex flex-col gap-2 ${className}`.trim()}>
      <label htmlFor={id} className="font-semibold">
        {label}
      </label>
      {shows(hint) && (
        <p id={hintId} className="text-sm text-stone-600">
          {hint}
        </p>
      )}
      {children({
        id,
        'aria-describedby': describedBy === '' ? undefined : describedBy,
        'aria-invalid': shows(error),
      })}
      {shows(error) && (
        <p id={errorId} role="alert" className="text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
