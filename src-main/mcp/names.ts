// Names on the combined /mcp endpoint: each server's tools and prompts carry the server's name in front
// (`github__create_issue`), so two servers' names cannot collide. Server names never hold `__`, so the
// first `__` always ends the server's part.
import { MCP_NAME_SEPARATOR } from '../core/mcp-servers.js';

export function prefixed(server: string, name: string): string {
  return `${server}${MCP_NAME_SEPARATOR}${name}`;
}

/** The server and the server's own name of a prefixed name; undefined when it has no server part. */
export function splitPrefixed(name: string): { server: string; name: string } | undefined {
  const at = name.indexOf(MCP_NAME_SEPARATOR);
  if (at <= 0) return undefined;
  return { server: name.slice(0, at), name: name.slice(at + MCP_NAME_SEPARATOR.length) };
}
