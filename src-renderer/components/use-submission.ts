// The one request a dialog sends: whether it is running, and why it failed.
import { useState } from 'react';
import { ApiError, describeError } from '../api/api-error';

/** A failure as a form shows it: the message, and the field it is about when the server named one. */
export interface FormError {
  message: string;
  param: string | null;
}

export function toFormError(error: unknown): FormError {
  return { message: describeError(error), param: error instanceof ApiError ? (error.param ?? null) : null };
}

/**
 * `submit(work)` runs the dialog's request: `submitting` while it runs, `error` (the failure as
 * `describe` puts it) once it fails, when the dialog stays open for another try. On success the dialog
 * closes, so nothing is reset. `setError` is for the dialog's own checks before anything is sent.
 */
export function useSubmission<E>(describe: (caught: unknown) => E) {
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<E | null>(null);
  const submit = async (work: () => Promise<void>): Promise<void> => {
    setSubmitting(true);
    setError(null);
    try {
      await work();
    } catch (caught) {
      setError(describe(caught));
      setSubmitting(false);
    }
  };
  return { submitting, error, setError, submit };
}
