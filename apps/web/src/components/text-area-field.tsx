import type { ReactNode, TextareaHTMLAttributes } from 'react';
import { CONTROL, FieldFrame } from './field-frame';

/** A labelled text of several lines (a list pasted in, say). */
export function TextAreaField({
  label,
  hint,
  error,
  className,
  ...textarea
}: Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> & {
  label: string;
  hint?: ReactNode;
  error?: ReactNode;
}) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(control) => <textarea {...control} className={`${CONTROL} font-mono`} {...textarea} />}
    </FieldFrame>
  );
}
