// OAuth sign-in to a remote MCP server, end to end: `gatehouse mcp add` finds out the server wants OAuth,
// its tools answer "sign-in needed" at once, `gatehouse mcp login` signs in with the test playing the
// browser (a forged redirect with a wrong state is refused on the way), a tool is called through /mcp,
// the short-lived token is refreshed by the gateway, revoked by `mcp remove`. Bad authorization servers
// (garbage metadata, a token endpoint that hangs) give clear errors within bounds. No token or client
// secret reaches the data dir in plain text or the CLI's output.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcpCommand } from '../../src-main/cli/mcp.js';
import { startGateway, TEST_MASTER_KEY, type TestGateway } from '../helpers/gateway.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { startOAuthMcpServer, type OAuthMcpTestServer } from '../fakes/mcp-oauth-server.js';

let gateway: TestGateway;
const outputs: string[] = [];
const servers: OAuthMcpTestServer[] = [];

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway?.close();
  for (const server of servers) await server.close();
});

/** Runs `gatehouse mcp …` in this process; `onStdout` sees stdout as it comes (the login's URL). */
async function mcp(args: string[], { env = {}, onStdout }: { env?: Record<string, string>; onStdout?: (text: string) => void } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    onStdout?.(out);
  });
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runMcpCommand([...args, '--data-dir', gateway.dataDir], { stdin: Readable.from(['']), stdout, stderr, env: { HOME: gateway.dataDir, ...env } });
  outputs.push(out, err);
  return { code, stdout: out, stderr: err };
}

async function serverRow(name: string): Promise<{ oauth: { state: string; expiresAt: string | null } | null }> {
  const response = await gateway.admin(`/mcp-servers/${name}`);
  return ((await response.json()) as { server: { oauth: { state: string; expiresAt: string | null } | null } }).server;
}

async function until(check: () => Promise<boolean>, limitMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > limitMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function callEcho(name: string, text: string): Promise<string> {
  const client = await connectMcp(gateway, `/mcp/${name}`, gateway.apiKey);
  try {
    return textOf(await client.callTool({ name: 'echo', arguments: { text } }));
  } finally {
    await client.close();
  }
}

/** `mcp login NAME`, the test playing the browser: a forged redirect first (wrong state), then the real one. */
async function login(name: string, env: Record<string, string> = {}) {
  let browsed: Promise<{ forged: number; real: number }> | undefined;
  const result = await mcp(['login', name], {
    env,
    onStdout: (text) => {
      const line = text.split('\n').find((one) => one.startsWith('http'));
      if (!line || browsed) return;
      browsed = (async () => {
        const approval = await fetch(line, { redirect: 'manual' });
        const callback = new URL(approval.headers.get('location') ?? '');
        const forgedUrl = new URL(callback);
        forgedUrl.searchParams.set('state', 'forged-state');
        const forged = (await fetch(forgedUrl)).status;
        const real = (await fetch(callback)).status;
        return { forged, real };
      })();
    },
  });
  return { ...result, browser: await browsed };
}

describe('OAuth sign-in to a remote MCP server', () => {
  it('detects, signs in, calls, refreshes, revokes on remove and signs in again', { timeout: 60_000 }, async () => {
    const server = await startOAuthMcpServer({ accessTokenSeconds: 3 });
    servers.push(server);

    const added = await mcp(['add', 'guarded', '--url', server.url]);
    expect(added.code).toBe(0);
    expect(added.stderr).toContain("wants OAuth sign-in: run 'gatehouse mcp login guarded'");
    const listed = await mcp(['list']);
    expect(listed.stdout).toMatch(/guarded\thttp\ton\t\S+\tsign-in-needed/);
    await until(async () => (await serverRow('guarded')).oauth?.state === 'sign-in-needed');
    // The running gateway hears of a server the CLI added on its next read of the store (a watch tick).
    await until(async () => !(await callEcho('guarded', 'probe').then(() => '', (error: Error) => error.message)).includes('No MCP server named'));

    // Before sign-in: a clear JSON-RPC error at once, never a hang.
    const started = Date.now();
    await expect(callEcho('guarded', 'early')).rejects.toThrow(/needs sign-in: run 'gatehouse mcp login guarded'/);
    // Well under the 60 s call timeout; the first call also loads the MCP gateway, seconds on a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);

    const signedIn = await login('guarded');
    expect(signedIn.stderr).toContain('does not carry the state of the sign-in under way');
    expect(signedIn.browser).toEqual({ forged: 400, real: 200 });
    expect(signedIn.code).toBe(0);
    expect(server.counts).toMatchObject({ registrations: 1, codeExchanges: 1 });
    await until(async () => (await serverRow('guarded')).oauth?.state === 'signed-in');
    expect((await serverRow('guarded')).oauth?.expiresAt).toMatch(/^\d{4}-/);

    // The running gateway reads the CLI's sign-in from the store within a second.
    await until(() => callEcho('guarded', 'hello').then((text) => text === 'guarded says hello', () => false), 3_000);

    // The 3 s token is refreshed by the gateway before it runs out; the call never sees a 401.
    await new Promise((resolve) => setTimeout(resolve, 2_600));
    const unauthorizedBefore = server.counts.unauthorized;
    expect(await callEcho('guarded', 'later')).toBe('guarded says later');
    expect(server.counts.refreshes).toBeGreaterThanOrEqual(1);
    expect(server.counts.unauthorized).toBe(unauthorizedBefore);

    // Revoking opens the sealed grant: the CLI needs the data key (headless: the master key).
    const removed = await mcp(['remove', 'guarded'], { env: { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY } });
    expect(removed.code).toBe(0);
    expect(removed.stderr).toContain("Revoked the OAuth grant of 'guarded'");
    expect(server.counts.revocations).toBeGreaterThanOrEqual(1);

    // Signed into again from scratch, once the running gateway has let the removed server go.
    await until(async () => !gateway.running.services.mcp.has('guarded'), 3_000);
    expect((await mcp(['add', 'guarded', '--url', server.url])).code).toBe(0);
    await until(async () => (await serverRow('guarded').catch(() => ({ oauth: null }))).oauth?.state === 'sign-in-needed');
    expect((await login('guarded')).code).toBe(0);
    await until(async () => (await serverRow('guarded')).oauth?.state === 'signed-in');
    await until(() => callEcho('guarded', 'again').then((text) => text === 'guarded says again', () => false), 3_000);

    // A grant revoked at the provider: the gateway finds out, and the server is "sign-in needed" again.
    server.revokeAll();
    await expect(callEcho('guarded', 'revoked')).rejects.toThrow(/needs sign-in/);
    await until(async () => (await serverRow('guarded')).oauth?.state === 'sign-in-needed');
  });

  it('an authorization server that answers garbage, and a token endpoint that hangs, give clear errors in bounded time', { timeout: 30_000 }, async () => {
    const garbage = await startOAuthMcpServer({ fault: 'garbage-metadata' });
    const hanging = await startOAuthMcpServer({ fault: 'hanging-token' });
    servers.push(garbage, hanging);
    expect((await mcp(['add', 'garbage', '--url', garbage.url])).code).toBe(0);
    expect((await mcp(['add', 'hanging', '--url', hanging.url])).code).toBe(0);

    const bad = await mcp(['login', 'garbage']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Signing in to MCP server 'garbage' failed");

    const started = Date.now();
    const hung = await login('hanging', { GATEHOUSE_OAUTH_TIMEOUT_MS: '500' });
    expect(hung.code).toBe(1);
    expect(hung.stderr).toMatch(/Signing in to MCP server 'hanging' failed: .*did not answer within 500 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await serverRow('hanging')).oauth?.state).toBe('sign-in-needed');
  });

  it('no token or client secret in the data dir in plain text, nor in any output', () => {
    const secrets = servers.flatMap((server) => server.issuedSecrets());
    expect(secrets.length).toBeGreaterThan(4);
    gateway.flushLog();
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(gateway.dataDir);
    const everything = [...files.map((file) => readFileSync(file).toString('latin1')), ...outputs].join('\n');
    for (const secret of secrets) expect(everything.includes(secret), `a secret issued by the test server leaked`).toBe(false);
  });
});
