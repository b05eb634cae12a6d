// The trace id of a call whose client sent none. It has W3C Trace Context's form (32 lower-case hex
// digits), which tracing tools such as OpenTelemetry take as it is, and it is one word to the log's
// search: a UUID's hyphens made it five, three of them 4-digit fragments that thousands of rows share,
// each one more entry for the search index to write (on PostgreSQL about 40% of a logged row's cost).
import { randomUUID } from 'node:crypto';

/** A random trace id: a version-4 UUID's 32 hex digits without its hyphens. */
export function newTraceId(): string {
  return randomUUID().replace(/-/g, '');
}
