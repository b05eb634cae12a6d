// How provider JSON that does not fit its format's schema is described in the gateway's error: the first
// issue's path and what was wrong with it, never the value (an answer may hold anything, a secret included).
import type { z } from 'zod';

/** `'choices[0].delta.content' Invalid input: expected string, received number`; `at`: where the checked value sits in the JSON. */
export function describeSchemaFailure(error: z.ZodError, at: readonly PropertyKey[] = []): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not match the format';
  const path = [...at, ...issue.path].reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');
  return `${path ? `'${path}' ` : ''}${issue.message}`;
}
