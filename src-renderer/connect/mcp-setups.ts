// Ready MCP set-ups for the agents people point at Gatehouse: each one adds Gatehouse's /mcp endpoint
// (every server the key may use, tool names prefixed with the server's) or /mcp/{server} (one server,
// its own names) as a Streamable HTTP server, with the key as a Bearer token. Formats as each tool
// documents them: Claude Code's `claude mcp add --transport http` and .mcp.json, Codex's
// [mcp_servers.NAME] with url and bearer_token_env_var, OpenCode 2.x's mcp.servers remote entry, Cursor's
// mcp.json (mcpServers) and VS Code's mcp.json (servers, type "http").
import { CODEX_ENV_KEY, KEY_PLACEHOLDER, shellSingleQuote, type ToolSetupStep } from './tool-setups';

export type McpToolId = 'claude-code' | 'codex' | 'opencode' | 'cursor' | 'vscode';

export interface McpSetup {
  id: McpToolId;
  title: string;
  short: string;
  summary: string;
  steps: ToolSetupStep[];
}

export interface McpSetupInput {
  /** The gateway's address, `http://127.0.0.1:8787`. */
  origin: string;
  /** A virtual or gateway key; null writes KEY_PLACEHOLDER. */
  key: string | null;
  /** One server's name for /mcp/{server}; null for /mcp (every server the key may use). */
  server: string | null;
}

/** The name the agents know Gatehouse's MCP entry by: its tools show as mcp__gatehouse__… in Claude Code. */
export const MCP_ENTRY_NAME = 'gatehouse';

export function mcpEndpoint(origin: string, server: string | null): string {
  const root = origin.replace(/\/+$/, '').replace(/\/v1$/, '');
  return server ? `${root}/mcp/${encodeURIComponent(server)}` : `${root}/mcp`;
}

function normalise(input: McpSetupInput) {
  return { url: mcpEndpoint(input.origin, input.server), key: input.key?.trim() || KEY_PLACEHOLDER, name: input.server ? `${MCP_ENTRY_NAME}-${input.server}` : MCP_ENTRY_NAME };
}

function shellDoubleQuote(text: string): string {
  return `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function claudeCodeMcp(input: McpSetupInput): McpSetup {
  const { url, key, name } = normalise(input);
  return {
    id: 'claude-code',
    title: 'Claude Code',
    short: 'Claude Code',
    summary: 'A Streamable HTTP server; the key goes out as Authorization: Bearer. Add --scope user to have it in every project.',
    steps: [
      { label: 'Run once', language: 'shell', code: `claude mcp add --transport http ${name} ${url} \\\n  --header ${shellDoubleQuote(`Authorization: Bearer ${key}`)}` },
      { label: 'Or save as .mcp.json in your project', language: 'json', code: json({ mcpServers: { [name]: { type: 'http', url, headers: { Authorization: `Bearer ${key}` } } } }) },
    ],
  };
}

export function codexMcpToml(input: McpSetupInput): string {
  const { url, name } = normalise(input);
  return [`[mcp_servers.${name}]`, `url = ${JSON.stringify(url)}`, `bearer_token_env_var = ${JSON.stringify(CODEX_ENV_KEY)}`].join('\n');
}

export function codexMcp(input: McpSetupInput): McpSetup {
  const { key } = normalise(input);
  return {
    id: 'codex',
    title: 'Codex CLI',
    short: 'Codex',
    summary: 'Codex reads the Bearer token from the variable bearer_token_env_var names (it refuses a token written in the file); the same variable as its model set-up.',
    steps: [
      { label: 'Add to ~/.codex/config.toml', language: 'toml', code: codexMcpToml(input) },
      { label: 'Set in your shell, then run codex', language: 'shell', code: [`export ${CODEX_ENV_KEY}=${shellSingleQuote(key)}`, 'codex'].join('\n') },
    ],
  };
}

export function openCodeMcpConfig(input: McpSetupInput): Record<string, unknown> {
  const { url, key, name } = normalise(input);
  return { $schema: 'https://opencode.ai/config.json', mcp: { servers: { [name]: { type: 'remote', url, headers: { Authorization: `Bearer ${key}` } } } } };
}

export function openCodeMcp(input: McpSetupInput): McpSetup {
  return {
    id: 'opencode',
    title: 'OpenCode',
    short: 'OpenCode',
    summary: 'A remote server under mcp.servers (OpenCode 2.x; 1.x puts the entry directly under mcp). Merge it into the opencode.json that has your model set-up.',
    steps: [{ label: 'Save as opencode.json in your project (or ~/.config/opencode/opencode.json)', language: 'json', code: json(openCodeMcpConfig(input)) }],
  };
}

export function cursorMcp(input: McpSetupInput): McpSetup {
  const { url, key, name } = normalise(input);
  return {
    id: 'cursor',
    title: 'Cursor',
    short: 'Cursor',
    summary: 'A remote server is an entry with a url; Cursor sends the headers with each request.',
    steps: [{ label: 'Save as .cursor/mcp.json in your project (or ~/.cursor/mcp.json)', language: 'json', code: json({ mcpServers: { [name]: { url, headers: { Authorization: `Bearer ${key}` } } } }) }],
  };
}

export function vsCodeMcp(input: McpSetupInput): McpSetup {
  const { url, key, name } = normalise(input);
  return {
    id: 'vscode',
    title: 'VS Code',
    short: 'VS Code',
    summary: 'Copilot’s agent mode reads servers (not mcpServers) from mcp.json; type "http" is Streamable HTTP.',
    steps: [{ label: 'Save as .vscode/mcp.json in your workspace', language: 'json', code: json({ servers: { [name]: { type: 'http', url, headers: { Authorization: `Bearer ${key}` } } } }) }],
  };
}

/** Every agent's MCP set-up, in the order the Connect page shows them. */
export function mcpSetups(input: McpSetupInput): McpSetup[] {
  return [claudeCodeMcp(input), codexMcp(input), openCodeMcp(input), cursorMcp(input), vsCodeMcp(input)];
}
