// The CLI on a team database: `gatehouse keys`, `routes`, `keys limits` and `mcp` given --database-url (or
// GATEHOUSE_DATABASE_URL) write the PostgreSQL a running team-mode gateway serves from, and the gateway
// acts on each change as it would on one made through its admin API: the key a command added answers
// calls, the route it added routes them, the limit it set refuses the surplus, the key it revoked is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src-main/cli/main.js';
import { startGateway, TEST_MASTER_KEY, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { stdioServerCommand } from '../helpers/mcp.js';
import { runInProcess } from '../helpers/cli-in-process.js';

let postgres: TestPostgres;
let fake: OpenAIFake;
let databaseUrl: string;
let gateway: TestGateway;

beforeAll(async () => {
  [postgres, fake] = await Promise.all([startPostgres(), startOpenAIFake()]);
  databaseUrl = await postgres.newDatabase();
  gateway = await startGateway({ databaseUrl });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  await postgres?.close();
}, 30_000);

/** One command line, as `gatehouse …` runs it, against the team database. */
function gatehouse(args: string[], { stdin = '', env = { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY } as NodeJS.ProcessEnv } = {}) {
  // A data dir nobody made: were the command to fall back to SQLite, it would find nothing there.
  return runInProcess(main, args, { stdin, env: { GATEHOUSE_DATA_DIR: '/nonexistent/gatehouse-cli-team', ...env } });
}

/** Polls until `check` holds, for at most `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const chat = (key: string, model: string) =>
  fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });

describe('the CLI on a team database (--database-url)', () => {
  it('adds, lists, limits, routes and revokes keys that the running team gateway serves', { timeout: 60_000 }, async () => {
    const added = await gatehouse(['keys', 'add', '--name', 'team-openai', '--provider', 'openai', '--custom-host', fake.baseUrl, '--database-url', databaseUrl], { stdin: 'sk-team-cli-0123456789\n' });
    expect(added.code, added.stderr).toBe(0);
    const virtualKey = added.stdout.trim();
    expect(virtualKey).toMatch(/^gh-vk-/);
    // The gateway hears the new key through PostgreSQL's change feed and serves it.
    await within(5_000, async () => (await chat(virtualKey, 'gpt-4o-mini')).status === 200);

    // GATEHOUSE_DATABASE_URL is the same as the flag.
    const listed = await gatehouse(['keys', 'list', '--json'], { env: { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY, GATEHOUSE_DATABASE_URL: databaseUrl } });
    expect(listed.code, listed.stderr).toBe(0);
    const { items } = JSON.parse(listed.stdout) as { items: { id: string; name: string; customHost: string }[] };
    expect(items.map((item) => [item.name, item.customHost])).toEqual([['team-openai', fake.baseUrl]]);
    const keyId = items[0].id;

    // A route the CLI adds is the one the gateway routes by.
    const route = await gatehouse(['routes', 'add', '--name', 'team-alias', '--match', 'team-model', '--target', 'team-openai=gpt-4o-mini', '--database-url', databaseUrl]);
    expect(route.code, route.stderr).toBe(0);
    await within(5_000, async () => (await chat(gateway.apiKey, 'team-model')).status === 200);
    expect(fake.requests.at(-1)?.json.model).toBe('gpt-4o-mini');
    const routes = await gatehouse(['routes', 'list', '--json', '--database-url', databaseUrl]);
    expect((JSON.parse(routes.stdout) as { name: string }[]).map((each) => each.name)).toEqual(['team-alias']);

    // A limit the CLI sets is counted by the gateway: one request a minute, and the next is refused.
    const limited = await gatehouse(['keys', 'limits', 'team-openai', '--rpm', '1', '--database-url', databaseUrl]);
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.stderr).toContain(`Limits of virtual key ${keyId} 'team-openai': 1 requests/min.`);
    await within(5_000, async () => (await chat(virtualKey, 'gpt-4o-mini')).status === 429);
    const shown = await gatehouse(['keys', 'limits', 'team-openai', '--json', '--database-url', databaseUrl]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ keyId, limits: { rpm: 1, tpm: null }, spentTodayUsd: expect.any(Number) });

    // Revoked through the CLI: refused by the gateway.
    const revoked = await gatehouse(['keys', 'revoke', keyId, '--database-url', databaseUrl]);
    expect(revoked.code, revoked.stderr).toBe(0);
    await within(5_000, async () => (await chat(virtualKey, 'gpt-4o-mini')).status === 401);
  });

  it('adds and lists MCP servers the running team gateway then lists, its secret sealed', { timeout: 30_000 }, async () => {
    const { command, args } = stdioServerCommand('team-cli');
    const added = await gatehouse(['mcp', 'add', 'team-cli', '--command', command, ...args.map((arg) => `--arg=${arg}`), '--secret-env', 'SERVICE_TOKEN', '--database-url', databaseUrl], {
      stdin: 'team-cli-secret-4f1c\n',
    });
    expect(added.code, added.stderr).toBe(0);
    const listed = await gatehouse(['mcp', 'list', '--json', '--database-url', databaseUrl]);
    const { servers } = JSON.parse(listed.stdout) as { servers: { name: string; secretEnv: string[] }[] };
    expect(servers.map((server) => [server.name, server.secretEnv])).toEqual([['team-cli', ['SERVICE_TOKEN']]]);
    expect(listed.stdout).not.toContain('team-cli-secret-4f1c');
    await within(5_000, async () => ((await (await gateway.admin('/mcp-servers')).json()) as { servers: { name: string }[] }).servers.some((server) => server.name === 'team-cli'));
  });

  it('refuses without the team master key, naming it, and writes nothing', async () => {
    const refused = await gatehouse(['gateway-keys', 'add', '--name', 'no-master-key', '--database-url', databaseUrl], { env: {} });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('GATEHOUSE_MASTER_KEY');
    const listed = await gatehouse(['gateway-keys', 'list', '--json', '--database-url', databaseUrl]);
    expect((JSON.parse(listed.stdout) as { items: { name: string }[] }).items.map((item) => item.name)).not.toContain('no-master-key');
  });
});
