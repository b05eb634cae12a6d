// Reading fields out of answers the Playground parsed as JSON, whose shape is not to be trusted.

export type JsonObject = Record<string, unknown>;

/** The value as an object, or null for anything else (arrays included). */
export function record(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** The value as a number, or null. */
export function count(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
