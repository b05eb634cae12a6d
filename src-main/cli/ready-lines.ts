// What `gatehouse serve` prints once it listens. The admin token's value is printed only when this start
// generated it and stdout is a terminal a person reads: stdout piped to a file, journald or a container's
// log keeps it, and a token that came from GATEHOUSE_ADMIN_TOKEN or the token file is never repeated.
import type { AdminTokenSource } from '../app.js';

/** A path as one shell word. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

export function readyLines(url: string, adminToken: string, source: AdminTokenSource, stdoutIsTerminal: boolean): string[] {
  const lines = [`Gatehouse listening on ${url}`];
  if (source.kind === 'generated' && stdoutIsTerminal) {
    lines.push(`Open the UI: ${url}/#token=${adminToken}`);
    return lines;
  }
  lines.push(`Open the UI: ${url}/`);
  lines.push(
    source.kind === 'environment'
      ? 'Admin token: the value of GATEHOUSE_ADMIN_TOKEN this server was started with'
      : `Admin token: kept in ${source.file} (to show it: cat ${shellWord(source.file)})`,
  );
  return lines;
}
