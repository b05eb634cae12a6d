// One error type for every failed call the UI makes, carrying the server's {error:{...}} fields
// so forms can show the message next to the field it names.
import type { ApiErrorBody } from './types';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string | null = null,
    readonly param: string | null = null,
    readonly code: string | number | null = null,
    /** Every problem, when the server found several at once (a routes file). */
    readonly problems: readonly { message: string; param: string | null }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function isApiErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const inner = (value as { error: unknown }).error;
  return typeof inner === 'object' && inner !== null && typeof (inner as { message?: unknown }).message === 'string';
}

/** Builds an ApiError from a failed response, whatever its body turns out to be. */
export function apiErrorFromBody(status: number, statusText: string, bodyText: string): ApiError {
  try {
    const parsed: unknown = JSON.parse(bodyText);
    if (isApiErrorBody(parsed)) {
      const { message, type, param, code } = parsed.error;
      const problems = (parsed.error as { errors?: unknown }).errors;
      return new ApiError(message, status, type ?? null, param ?? null, code ?? null, Array.isArray(problems) ? (problems as { message: string; param: string | null }[]) : []);
    }
  } catch {
    // Not JSON: fall through to the status line.
  }
  const fallback = bodyText.trim().slice(0, 300) || statusText || 'Request failed';
  return new ApiError(`${status} ${fallback}`, status);
}

export async function apiErrorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  return apiErrorFromBody(response.status, response.statusText, text);
}

/** Turns anything thrown into a message a person can read. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return `Could not reach Gatehouse (${error.message})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
