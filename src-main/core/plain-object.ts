// Whether a parsed JSON value is an object with members (not null, not an array): the first question
// every reader of a request body or a provider answer asks.

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object with members, or null when it is anything else. */
export function plainObjectOrNull(value: unknown): Record<string, unknown> | null {
  return isPlainObject(value) ? value : null;
}
