import type { Ref } from 'react';
import { FieldError, Input, Label, TextArea, TextField, type TextFieldProps } from 'react-aria-components';

/** A labelled text box (React Aria's TextField): the label is its accessible name, errors are announced. */
export function Field({
  label,
  multiline,
  placeholder,
  className,
  inputRef,
  ...props
}: Omit<TextFieldProps, 'className'> & {
  label: string;
  multiline?: boolean;
  placeholder?: string;
  className?: string;
  /** The text box itself (to move focus to it). */
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <TextField {...props} className={`field ${className ?? ''}`}>
      <Label>{label}</Label>
      {multiline ? <TextArea placeholder={placeholder} rows={3} /> : <Input placeholder={placeholder} ref={inputRef} />}
      <FieldError className="field-error" />
    </TextField>
  );
}
