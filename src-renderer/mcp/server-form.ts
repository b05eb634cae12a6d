// The "Add a server" form of the MCP servers page as plain data: the presets it starts from, the rules a
// server's name follows, and the body POST /admin/api/mcp-servers takes. Kept apart from React so the
// rules are tested on their own.
import type { McpTransport, NewMcpServer } from '../api/types';

/** A name/value row of the environment or the headers; a secret value is sealed by the server. */
export interface ValueRow {
  name: string;
  value: string;
  secret: boolean;
}

export interface ServerDraft {
  name: string;
  transport: McpTransport;
  command: string;
  /** As typed: words split on spaces, quotes keep spaces inside one argument. */
  args: string;
  env: ValueRow[];
  url: string;
  headers: ValueRow[];
  timeoutSeconds: string;
}

export interface ServerPreset {
  id: string;
  label: string;
  /** What the person still has to fill in. */
  note: string;
  draft: ServerDraft;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;

export const EMPTY_DRAFT: ServerDraft = { name: '', transport: 'stdio', command: '', args: '', env: [], url: '', headers: [], timeoutSeconds: String(DEFAULT_TIMEOUT_SECONDS) };

/** Templates that fill the form; the person completes what is in angle brackets or left empty. */
export const SERVER_PRESETS: ServerPreset[] = [
  {
    id: 'filesystem',
    label: 'Filesystem',
    note: 'Replace <dir> with the folder the server may read and write (more folders: more arguments).',
    draft: { ...EMPTY_DRAFT, name: 'filesystem', command: 'npx', args: '-y @modelcontextprotocol/server-filesystem <dir>' },
  },
  {
    id: 'github',
    label: 'GitHub',
    note: 'Paste a GitHub personal access token: it is sealed like a provider secret and never shown again.',
    draft: { ...EMPTY_DRAFT, name: 'github', command: 'npx', args: '-y @modelcontextprotocol/server-github', env: [{ name: 'GITHUB_PERSONAL_ACCESS_TOKEN', value: '', secret: true }] },
  },
  {
    id: 'fetch',
    label: 'Fetch',
    note: 'Needs uv (uvx) on this computer.',
    draft: { ...EMPTY_DRAFT, name: 'fetch', command: 'uvx', args: 'mcp-server-fetch' },
  },
];

/** Lower-case letters, digits and "-", at most 32: tool names are prefixed with it (`github__create_issue`). */
export function serverNameProblem(name: string): string | null {
  if (!name) return 'Give the server a name';
  if (name.length > 32) return 'At most 32 characters';
  if (!/^[a-z0-9-]+$/.test(name)) return 'Only lower-case letters, digits and “-”';
  if (name.includes('__')) return 'No “__”: it separates the server from the tool in prefixed names';
  return null;
}

/** Splits an argument line as a shell would for plain words and quotes, without expanding anything. */
export function splitArguments(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = null;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) out.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote) throw new Error(`A ${quote} quote is not closed`);
  if (inWord) out.push(current);
  return out;
}

/** Arguments back as one line, quoting those with spaces, for showing a server's set-up. */
export function joinArguments(args: readonly string[]): string {
  return args.map((arg) => (arg === '' || /[\s"']/.test(arg) ? `'${arg}'` : arg)).join(' ');
}

export interface DraftProblem {
  field: 'name' | 'command' | 'args' | 'env' | 'url' | 'headers' | 'timeout';
  message: string;
}

function rowsProblem(rows: ValueRow[], what: 'variable' | 'header'): string | null {
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (!name && !row.value) continue;
    if (!name) return `A ${what} has a value but no name`;
    if (what === 'variable' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `${name} is not an environment variable name (letters, digits, “_”)`;
    if (what === 'header' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return `${name} is not a header name`;
    if (seen.has(name.toLowerCase())) return `${name} is there twice`;
    seen.add(name.toLowerCase());
    if (row.secret && !row.value) return `Fill in the secret value of ${name}`;
  }
  return null;
}

function rowsToBody(rows: ValueRow[]): { plain: Record<string, string>; secret: Record<string, string> } {
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    (row.secret ? secret : plain)[name] = row.value;
  }
  return { plain, secret };
}

/** The first thing to fix, or the body to send. */
export function draftToServer(draft: ServerDraft): { problem: DraftProblem } | { server: NewMcpServer } {
  const name = draft.name.trim();
  const nameProblem = serverNameProblem(name);
  if (nameProblem) return { problem: { field: 'name', message: nameProblem } };
  const seconds = Number(draft.timeoutSeconds);
  if (!draft.timeoutSeconds.trim() || !Number.isFinite(seconds) || seconds <= 0) return { problem: { field: 'timeout', message: 'A number of seconds above 0' } };
  const timeoutMs = Math.round(seconds * 1000);

  if (draft.transport === 'stdio') {
    const command = draft.command.trim();
    if (!command) return { problem: { field: 'command', message: 'The program to start, e.g. npx or uvx' } };
    let args: string[];
    try {
      args = splitArguments(draft.args);
    } catch (error) {
      return { problem: { field: 'args', message: (error as Error).message } };
    }
    const placeholder = args.find((arg) => /<[^>]+>/.test(arg));
    if (placeholder) return { problem: { field: 'args', message: `Replace ${placeholder.match(/<[^>]+>/)![0]} with a real value` } };
    const envProblem = rowsProblem(draft.env, 'variable');
    if (envProblem) return { problem: { field: 'env', message: envProblem } };
    const env = rowsToBody(draft.env);
    return { server: { name, transport: 'stdio', command, args, env: env.plain, secretEnv: env.secret, timeoutMs } };
  }

  const url = draft.url.trim();
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return { problem: { field: 'url', message: 'An http:// or https:// address' } };
  const headerProblem = rowsProblem(draft.headers, 'header');
  if (headerProblem) return { problem: { field: 'headers', message: headerProblem } };
  const headers = rowsToBody(draft.headers);
  return { server: { name, transport: draft.transport, url, headers: headers.plain, secretHeaders: headers.secret, timeoutMs } };
}
