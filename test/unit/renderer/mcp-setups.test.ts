// Each agent's MCP set-up on Connect a tool: the /mcp (or /mcp/{server}) address and the key written in,
// in the format the agent reads — Claude Code's command and .mcp.json, Codex's [mcp_servers] table with
// bearer_token_env_var (the key itself stays out of the file), OpenCode 2.x's mcp.servers remote entry,
// Cursor's mcpServers and VS Code's servers with type "http".
import { describe, expect, it } from 'vitest';
import { codexMcpToml, mcpEndpoint, mcpSetups } from '../../../src-renderer/connect/mcp-setups';
import { CODEX_ENV_KEY, KEY_PLACEHOLDER } from '../../../src-renderer/connect/tool-setups';

const ORIGIN = 'http://127.0.0.1:8799';
const KEY = 'gh-vk-0123456789abcdef';
const code = (id: string, server: string | null = null, key: string | null = KEY) => mcpSetups({ origin: ORIGIN, key, server }).find((setup) => setup.id === id)!.steps.map((step) => step.code);

describe('MCP set-ups', () => {
  it('address /mcp, or one server at /mcp/{server}, from any form of the origin', () => {
    expect(mcpEndpoint(`${ORIGIN}/v1/`, null)).toBe(`${ORIGIN}/mcp`);
    expect(mcpEndpoint(ORIGIN, 'github')).toBe(`${ORIGIN}/mcp/github`);
  });

  it('every agent has the address and the key (Codex through its variable), and a placeholder when no key is given', () => {
    for (const setup of mcpSetups({ origin: ORIGIN, key: KEY, server: null })) {
      const all = setup.steps.map((step) => step.code).join('\n');
      expect(all, setup.id).toContain(`${ORIGIN}/mcp`);
      expect(all, setup.id).toContain(KEY);
    }
    for (const setup of mcpSetups({ origin: ORIGIN, key: ' ', server: null })) expect(setup.steps.map((step) => step.code).join('\n'), setup.id).toContain(KEY_PLACEHOLDER);
  });

  it('Claude Code: claude mcp add --transport http with the Bearer header, and the same in .mcp.json', () => {
    const [command, file] = code('claude-code');
    expect(command).toBe(`claude mcp add --transport http gatehouse ${ORIGIN}/mcp \\\n  --header "Authorization: Bearer ${KEY}"`);
    expect(JSON.parse(file)).toEqual({ mcpServers: { gatehouse: { type: 'http', url: `${ORIGIN}/mcp`, headers: { Authorization: `Bearer ${KEY}` } } } });
  });

  it('Codex: a [mcp_servers] table with url and bearer_token_env_var, the key only in the shell', () => {
    const toml = codexMcpToml({ origin: ORIGIN, key: KEY, server: 'github' });
    expect(toml).toBe(`[mcp_servers.gatehouse-github]\nurl = "${ORIGIN}/mcp/github"\nbearer_token_env_var = "${CODEX_ENV_KEY}"`);
    expect(toml).not.toContain(KEY);
    expect(code('codex')[1]).toBe(`export ${CODEX_ENV_KEY}=${KEY}\ncodex`);
  });

  it('OpenCode, Cursor and VS Code: their own JSON shapes', () => {
    const headers = { Authorization: `Bearer ${KEY}` };
    const url = `${ORIGIN}/mcp`;
    expect(JSON.parse(code('opencode')[0])).toEqual({ $schema: 'https://opencode.ai/config.json', mcp: { servers: { gatehouse: { type: 'remote', url, headers } } } });
    expect(JSON.parse(code('cursor')[0])).toEqual({ mcpServers: { gatehouse: { url, headers } } });
    expect(JSON.parse(code('vscode')[0])).toEqual({ servers: { gatehouse: { type: 'http', url, headers } } });
  });

  it('quotes a key with shell characters in the Claude Code command', () => {
    expect(code('claude-code', null, 'k"$x')[0]).toContain('--header "Authorization: Bearer k\\"\\$x"');
  });
});
