import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

const INPUT =
  'min-h-11 w-full rounded-md border border-stone-400 bg-white px-3 py-2 text-lg ' +
  'focus:border-emerald-700 focus:outline-3 focus:outline-amber-500 aria-invalid:border-red-700 ' +
  'disabled:cursor-not-allowed disabled:opacity-60';

/** Codes are read aloud and compared character by character: a fixed-width, spaced font. */
const CODE = 'font-mono tracking-widest';

/** Whether React renders something for the node (false, null, undefined and '' render nothing). */
function shows(node: ReactNode): boolean {
  return node !== undefined && node !== null && node !== false && node !== '';
}

/**
 * One text field of a form: its label, an optional hint, the input and its error. The input is
 * described by the hint and the error (`aria-describedby`) and marked invalid while there is an
 * error, which is announced (`role="alert"`). Every other prop goes to the input.
 */
export function TextField({
  label,
  hideLabel = false,
  hint,
  error,
  code = false,
  className = '',
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'aria-describedby' | 'aria-invalid'> & {
  label: string;
  /** The label is for screen readers only (the placeholder says it on screen). */
  hideLabel?: boolean;
  hint?: ReactNode;
  /** Shown below the input; nothing (null, undefined, false): no error. */
  error?: ReactNode;
  /** The value is a code (monospace, spaced). */
  code?: boolean;
}) {
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const hasHint = shows(hint);
  const hasError = shows(error);
  const describedBy = [hasHint ? hintId : null, hasError ? errorId : null]
    .filter((id) => id !== null)
    .join(' ');
  return (
    <div className={`flex flex-col gap-2 ${className}`.trim()}>
      <label htmlFor={inputId} className={hideLabel ? 'sr-only' : 'font-semibold'}>
        {label}
      </label>
      {hasHint && (
        <p id={hintId} className="text-sm text-stone-600">
          {hint}
        </p>
      )}
      <input
        id={inputId}
        aria-invalid={hasError}
        aria-describedby={describedBy === '' ? undefined : describedBy}
        className={code ? `${INPUT} ${CODE}` : INPUT}
        {...input}
      />
      {hasError && (
        <p id={errorId} role="alert" className="text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
