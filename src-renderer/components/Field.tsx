// A labelled form control with its hint and its error, wired up for screen readers.
import { cloneElement, isValidElement, useId, type ReactElement, type ReactNode } from 'react';

/** What the labelled control needs so its label, hint and error reach assistive technology. */
export interface FieldControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
}

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** The control itself, or a function placing the control inside other markup. */
  children: ReactElement<Partial<FieldControlProps>> | ((control: FieldControlProps) => ReactNode);
  trailing?: ReactNode;
  className?: string;
}

export function Field({ label, hint, error, children, trailing, className }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  const controlProps: FieldControlProps = { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined };
  const control = typeof children === 'function' ? children(controlProps) : isValidElement(children) ? cloneElement(children, controlProps) : children;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <div className="field-label-row">
        <label htmlFor={id} className="field-label">
          {label}
        </label>
        {trailing}
      </div>
      {control}
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
      {hint && !error && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
