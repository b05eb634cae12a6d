// `gatehouse migrate`: a desktop data dir with 100k log rows moved into an empty team database; its keys
// (secrets still sealed) answer through a team instance, and its routes, settings, prompts, limits and
// usage totals come along. A database that is not empty is refused, and so is a data dir a server still has open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_MASTER_KEY, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { openDatabase } from '../../src-main/store/database.js';
import { USAGE_FOR_BATCH } from '../../src-main/store/log-usage-rollup.js';
import { runMigrateCommand } from '../../src-main/cli/migrate.js';

const GENERATED_ROWS = 100_000;
const MCP_SECRET = 'desk-mcp-secret-2b9f4e';
const TRICKY_BODY = '{"a":"tab\there","b":"line\nnext\r\nend","c":"back\\\\slash \\N","d":"\u00e9\u{1F600}"}';
let postgres: TestPostgres;
let fake: OpenAIFake;
let dataDir: string;
const desktop: { virtualKey?: { id: string; key: string }; gatewayKey?: string } = {};

async function migrateCommand(args: string[], env: NodeJS.ProcessEnv = { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY }) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runMigrateCommand(args, { stdout, stderr, env });
  return { code, out, err };
}

beforeAll(async () => {
  postgres = await startPostgres();
  fake = await startOpenAIFake();
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-migrate-'));
  // The desktop's setup, made through its own admin API.
  const gateway = await startGateway({ dataDir });
  try {
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'desk', provider: 'openai', secret: 'sk-desk-secret', customHost: fake.baseUrl }) });
    desktop.virtualKey = (await created.json()) as { id: string; key: string };
    desktop.gatewayKey = ((await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'tools' }) })).json()) as { key: string }).key;
    expect((await gateway.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'desk-route', match: 'desk-*', targets: [{ key: 'desk' }] }) })).status).toBe(201);
    expect((await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ retentionDays: 90 }) })).status).toBe(200);
    expect((await gateway.admin('/saved-prompts', { method: 'POST', body: JSON.stringify({ name: 'hello', endpoint: '/v1/chat/completions', body: { model: 'gpt-4o', messages: [] } }) })).status).toBeLessThan(300);
    expect((await gateway.admin(`/keys/${desktop.virtualKey.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 1000 }) })).status).toBe(200);
    // An MCP server with a sealed secret, and the key limited to it.
    const server = { name: 'desk-tools', command: process.execPath, args: ['--version'], secretEnv: { DESK_TOKEN: MCP_SECRET } };
    expect((await gateway.admin('/mcp-servers', { method: 'POST', body: JSON.stringify(server) })).status).toBe(201);
    expect((await gateway.admin(`/virtual-keys/${desktop.virtualKey.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['desk-tools'] }) })).status).toBe(200);
  } finally {
    await gateway.close();
  }
  // 100k log rows written straight into SQLite (as the benchmark does), with their usage totals. They end
  // two minutes back: within the last minute they would count against the key's 1000 rpm on the team instance.
  const db = openDatabase(dataDir);
  const first = (db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM request_log').get() as { id: number }).id;
  const now = Date.now();
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO request_log (created_at, trace_id, metadata, key_id, provider, model, path, status, latency_ms, prompt_tokens, completion_tokens, stream, attempts, dialect_given, cost_usd, client, day)
       SELECT ? - i, 'trace-' || i, '{}', ?, 'openai', 'gpt-4o-mini', '/v1/chat/completions', CASE WHEN i % 50 = 0 THEN 500 ELSE 200 END, 12.5, 10, 5, 0, 1, 'openai-chat', 0.000001, 'curl', date((? - i) / 1000, 'unixepoch', 'localtime') FROM n`,
    ).run(GENERATED_ROWS, now - 120_000, desktop.virtualKey!.id, now - 120_000);
    // A row whose bodies hold what COPY's text format must escape: tab, newline, carriage return, backslash, \N.
    db.prepare(
      `INSERT INTO request_log (created_at, trace_id, metadata, key_id, provider, model, path, status, latency_ms, stream, attempts, request_body, response_body, day)
       VALUES (?, 'escapes', '{"note":"a\\\\b"}', ?, 'openai', 'gpt-4o-mini', '/v1/chat/completions', 200, 1, 0, 1, ?, ?, date(? / 1000, 'unixepoch', 'localtime'))`,
    ).run(now - 200_000, desktop.virtualKey!.id, TRICKY_BODY, '\\N', now - 200_000);
    // An MCP call's row, and a row whose usage the gateway counted itself.
    db.prepare(
      `INSERT INTO request_log (created_at, trace_id, metadata, key_id, path, status, latency_ms, stream, attempts, day, kind, mcp_server, mcp_tool, usage_estimated)
       VALUES (?, 'mcp-call', '{}', ?, '/mcp', 200, 3, 0, 1, date(? / 1000, 'unixepoch', 'localtime'), 'mcp', 'desk-tools', 'lookup', 1)`,
    ).run(now - 300_000, desktop.virtualKey!.id, now - 300_000);
    for (const sql of USAGE_FOR_BATCH) db.prepare(sql).run(first);
  })();
  db.close();
}, 120_000);

afterAll(async () => {
  await fake?.close();
  await postgres?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

describe('gatehouse migrate', () => {
  it('moves a data dir with 100k log rows into an empty database, and its keys answer through a team instance', async () => {
    const url = await postgres.newDatabase();
    const started = Date.now();
    const migrated = await migrateCommand(['--data-dir', dataDir, '--to', url]);
    expect(migrated.err).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.out).toMatch(/1 virtual keys, 1 gateway keys, 1 routes, .* 1 saved prompts, 1 key limits, 100002 log rows, 1 MCP servers/);
    console.log(`migrate of ${GENERATED_ROWS} rows: ${Date.now() - started} ms`);

    const team: TestGateway = await startGateway({ databaseUrl: url });
    try {
      const call = await fetch(`${team.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${desktop.virtualKey!.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(call.status).toBe(200);
      // The provider got the secret that was sealed on the desktop: it was never decrypted on the way.
      expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-desk-secret');
      const models = await fetch(`${team.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${desktop.gatewayKey}` } });
      expect(models.status).not.toBe(401);
      await team.flushLog();

      const usage = (await (await team.admin('/usage?range=month&by=key')).json()) as { totals: { requests: number; errors: number } };
      expect(usage.totals.requests).toBeGreaterThanOrEqual(GENERATED_ROWS + 1);
      const all = (await (await team.admin('/logs?limit=1&status=error')).json()) as { items: { status: number }[] };
      expect(all.items[0].status).toBe(500);
      const escapes = (await (await team.admin('/logs?q=escapes')).json()) as { items: { id: string }[] };
      const moved = (await (await team.admin(`/logs/${escapes.items[0].id}`)).json()) as { requestBody: string; responseBody: string; metadata: Record<string, string> };
      expect(moved).toMatchObject({ requestBody: TRICKY_BODY, responseBody: '\\N', metadata: { note: 'a\\b' } });
      const search = (await (await team.admin('/logs?q=trace-4242')).json()) as { items: { traceId: string }[] };
      expect(search.items.map((item) => item.traceId)).toContain('trace-4242');
      const routes = (await (await team.admin('/routes')).json()) as { items: { name: string }[] };
      expect(routes.items.map((route) => route.name)).toEqual(['desk-route']);
      expect(team.running.services.settings.get().retentionDays).toBe(90);
      const prompts = (await (await team.admin('/saved-prompts')).json()) as { items: { name: string }[] };
      expect(prompts.items.map((prompt) => prompt.name)).toEqual(['hello']);
      const limits = (await (await team.admin(`/keys/${desktop.virtualKey!.id}/limits`)).json()) as { limits: { rpm: number } };
      expect(limits.limits.rpm).toBe(1000);
      // The MCP server came with its secret still sealed, and the team's data key opens it.
      const servers = (await (await team.admin('/mcp-servers')).json()) as { servers: { name: string; secretEnv: string[] }[] };
      expect(servers.servers).toMatchObject([{ name: 'desk-tools', secretEnv: ['DESK_TOKEN'] }]);
      expect((await team.running.services.mcpServers.connections())[0].secretEnvValues).toEqual({ DESK_TOKEN: MCP_SECRET });
      const key = (await (await team.admin(`/virtual-keys/${desktop.virtualKey!.id}`)).json()) as { mcpServers: string[] | null };
      expect(key.mcpServers).toEqual(['desk-tools']);
      const mcpRows = (await (await team.admin('/logs?kind=mcp')).json()) as { items: { traceId: string; server: string; tool: string; usageEstimated: boolean }[] };
      expect(mcpRows.items).toMatchObject([{ traceId: 'mcp-call', server: 'desk-tools', tool: 'lookup', usageEstimated: true }]);
    } finally {
      await team.close();
    }
  }, 120_000);

  it('refuses while a server still has the data dir open, copying nothing; once it is stopped the data dir is free again', async () => {
    const url = await postgres.newDatabase();
    const running = await startGateway({ dataDir });
    try {
      const refused = await migrateCommand(['--data-dir', dataDir, '--to', url]);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/is in use \(another process has its database open: a gatehouse serve or the desktop app\)\. Stop it/);
      expect(refused.out).toBe('');
    } finally {
      await running.close();
    }
    const { Client } = (await import('pg')).default;
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      // Not even the schema was made: the refusal came before anything was written.
      expect((await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
    // The lock went with the refused command: a server starts on the data dir again.
    const again = await startGateway({ dataDir });
    await again.close();
  }, 60_000);

  it('refuses a database that is not empty, and a missing master key, changing nothing', async () => {
    const url = await postgres.newDatabase();
    const team = await startGateway({ databaseUrl: url });
    await team.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'already here' }) });
    await team.close();
    const refused = await migrateCommand(['--data-dir', dataDir, '--to', url]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/The target database is not empty: its \w+ table has rows/);
    const noKey = await migrateCommand(['--data-dir', dataDir, '--to', url], {});
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/needs GATEHOUSE_MASTER_KEY/);
  }, 60_000);
});
