// `gatehouse mcp ...` and `gatehouse keys mcp` as their own processes beside a running server on the
// same data dir: what they change reaches the server within a second, secrets come from stdin only.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { connectMcp, STDIO_SERVER_SCRIPT, textOf } from '../helpers/mcp.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const HEADER_SECRET = 'cli-header-secret-5e6f7a8b9c';
const ENV_SECRET = 'cli-env-secret-1a2b3c4d5e';

let gateway: TestGateway;
let remote: McpHttpTestServer;

beforeAll(async () => {
  gateway = await startGateway();
  remote = await startMcpHttpServer('remote');
});
afterAll(async () => {
  await gateway?.close();
  await remote?.close();
});

function cli(args: string[], stdin = '', env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...args, '--data-dir', gateway.dataDir], {
      cwd: repoRoot,
      // No master key: adding servers seals with the public key only.
      env: { PATH: process.env.PATH, HOME: gateway.dataDir, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function toolNames(key = TEST_GATEWAY_KEY): Promise<string[]> {
  const client = await connectMcp(gateway, '/mcp', key);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** Milliseconds until the check passes, polling; fails past the limit. */
async function millisecondsUntil(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if (await check()) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${limitMs} ms`);
}

describe('gatehouse mcp', () => {
  it('adds servers with secrets from stdin, which a running server serves within a second', { timeout: 90_000 }, async () => {
    const added = await cli(['mcp', 'add', 'remote', '--url', remote.url, '--header', 'x-team: a', '--secret-header', 'x-service-token'], `${HEADER_SECRET}\n`);
    expect(added.stderr).toContain("Added MCP server 'remote'");
    expect(added.code).toBe(0);
    // The running server has it within a second (read from its memory); a client then lists it.
    expect(await millisecondsUntil(async () => gateway.running.services.mcp.has('remote'), 5_000)).toBeLessThan(1_500);
    expect(await toolNames()).toContain('remote__echo');

    const local = await cli(
      ['mcp', 'add', 'local', '--command', process.execPath, '--arg=--import', '--arg=tsx', `--arg=${STDIO_SERVER_SCRIPT}`, '--arg=local', '--env', 'PLAIN=1', '--secret-env', 'SERVICE_TOKEN'],
      `${ENV_SECRET}\n`,
    );
    expect(local.code, local.stderr).toBe(0);
    await millisecondsUntil(async () => (await toolNames()).includes('local__env'), 60_000);
    const client = await connectMcp(gateway, '/mcp/local', TEST_GATEWAY_KEY);
    expect(textOf(await client.callTool({ name: 'env', arguments: { name: 'SERVICE_TOKEN' } }))).toBe(`SERVICE_TOKEN=${ENV_SECRET}`);
    await client.close();

    const listed = await cli(['mcp', 'list', '--json']);
    const servers = (JSON.parse(listed.stdout) as { servers: { name: string; secretEnv: string[]; secretHeaders: string[] }[] }).servers;
    expect(servers.map((server) => server.name)).toEqual(['local', 'remote']);
    expect(servers[1].secretHeaders).toEqual(['x-service-token']);
    expect(listed.stdout).not.toContain(HEADER_SECRET);
    expect(listed.stdout).not.toContain(ENV_SECRET);

    // Asked of the running server (found as the server finds its port: GATEHOUSE_PORT, else Settings).
    const tools = await cli(['mcp', 'tools', 'remote'], '', { GATEHOUSE_PORT: String(gateway.running.port) });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toMatch(/^echo\tSays back what it is given$/m);
  });

  it('refuses a secret value on the command line and a second server of a name', { timeout: 60_000 }, async () => {
    const refused = await cli(['mcp', 'add', 'other', '--url', remote.url, '--secret-header', `x-token:${HEADER_SECRET}`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/take a name only/);
    const taken = await cli(['mcp', 'add', 'remote', '--url', remote.url]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/exists already/);
    const both = await cli(['mcp', 'add', 'x', '--url', remote.url, '--command', 'node']);
    expect(both.code).toBe(2);
  });

  it('limits a key to some servers and tools with keys mcp, and removes a server, each within a second', { timeout: 90_000 }, async () => {
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'cli-limited' }) })).json()) as { key: string };
    // A session opened before the change loses the server too, and its client is told.
    const open = await connectMcp(gateway, '/mcp', created.key);
    let toldAt: number | undefined;
    open.setNotificationHandler(ToolListChangedNotificationSchema, () => void (toldAt ??= Date.now()));
    expect((await open.listTools()).tools.map((tool) => tool.name)).toContain('local__echo');
    const limited = await cli(['keys', 'mcp', 'cli-limited', '--servers', 'remote']);
    expect(limited.code, limited.stderr).toBe(0);
    const exitedAt = Date.now();
    await vi.waitFor(() => expect(toldAt).toBeDefined(), { timeout: 1_500, interval: 20 });
    expect(toldAt! - exitedAt).toBeLessThan(1_500);
    expect((await open.listTools()).tools.map((tool) => tool.name)).not.toContain('local__echo');
    await expect(open.callTool({ name: 'local__echo', arguments: { text: 'x' } })).rejects.toThrow(/This key may not use MCP server 'local'/);
    await open.close();
    const caller = () => gateway.running.services.keys.resolve(created.key);
    expect(await millisecondsUntil(async () => caller()?.mcpServers?.join() === 'remote', 5_000)).toBeLessThan(1_500);
    expect((await toolNames(created.key)).some((name) => name.startsWith('local__'))).toBe(false);
    expect(await toolNames(created.key)).toContain('remote__echo');
    const shown = await cli(['keys', 'mcp', 'cli-limited', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ mcpServers: ['remote'] });
    await cli(['keys', 'mcp', 'cli-limited', '--all']);
    await millisecondsUntil(async () => caller()?.mcpServers === undefined, 5_000);
    expect(await toolNames(created.key)).toContain('local__echo');

    // Two tools of one server, nothing else: --servers with --tools, and --default deny for what it does not name.
    const two = await cli(['keys', 'mcp', 'cli-limited', '--servers', 'remote', '--tools', 'remote:echo,remote:fail', '--default', 'deny', '--json']);
    expect(two.code, two.stderr).toBe(0);
    expect(JSON.parse(two.stdout)).toMatchObject({ mcpServers: ['remote'], mcpTools: { remote: ['echo', 'fail'] }, mcpDefault: 'deny' });
    expect(await millisecondsUntil(async () => caller()?.mcpTools?.remote?.join() === 'echo,fail', 5_000)).toBeLessThan(1_500);
    expect((await toolNames(created.key)).sort()).toEqual(['remote__echo', 'remote__fail']);

    const removed = await cli(['mcp', 'remove', 'remote']);
    expect(removed.code).toBe(0);
    expect(await millisecondsUntil(async () => !gateway.running.services.mcp.has('remote'), 5_000)).toBeLessThan(1_500);
    expect(await toolNames()).not.toContain('remote__echo');
  });
});
