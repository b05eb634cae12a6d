// What the MCP gateway says on the wire in its own name, in one place: the error codes its clients have
// always been answered with (the 2025 SDK's ConnectionClosed and RequestTimeout, which the v2 SDK keeps
// local to the process), and the result schema of a relay, which passes an answer on as the server sent it.
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

/** An MCP server that cannot be reached, is stopping, or went away mid-call. */
export const UNAVAILABLE = -32000;
/** An MCP server that did not answer within its call timeout (the row's 504). */
export const TIMED_OUT = -32001;

/**
 * Accepts any result: a relay forwards methods it need not understand (the SDK would otherwise check a spec
 * method's result against its own schema, and refuse a method it does not know), member order kept.
 */
export const PASS_THROUGH: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'gatehouse',
    validate: (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'a JSON-RPC result must be an object' }] },
  },
};
