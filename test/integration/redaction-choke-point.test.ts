// Issue 35, "one redactor for every stored byte": a distinct secret planted in each place a secret can
// come from — a provider key the client sends (Authorization, a forwarded x-api-key / x-goog-api-key /
// x-custom-auth), a virtual key's sealed provider secret and a route target's, echoed back by the
// provider double in an error body and in a streamed error (model calls, embeddings), an MCP server's
// `--secret-env` value and secret header echoed in its tool output, its tool error and its JSON-RPC
// error, metadata entries (named as a credential, or shaped as a key), a header named as a credential and
// quoted in the prompt, and wrong gateway keys (x-gateway-api-key, Authorization, x-api-key,
// x-goog-api-key, `?key=`) — then none of them anywhere the log can be read: any column of the stored
// rows, every table, the data dir's files (the SQLite database and its WAL), the admin API's list and
// detail, the live log, both exports and the log search. On each storage backend.
//
// The suite knows every column of request_log and every kind of row: a column or a kind it does not know
// fails it, so whoever adds one must add it here (and see that it goes through core/redacted-record.ts).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.js';
import { describeGrowth, measureGrowth } from '../helpers/complexity.js';
import { TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { addMcpServer, connectMcp, stdioServerCommand, textOf } from '../helpers/mcp.js';
import { startOpenAIFake, type OpenAIFake, type RecordedRequest } from '../fakes/openai.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { REDACTED } from '../../src-main/core/redact.js';
import { FIELDS, redactRecord } from '../../src-main/core/redacted-record.js';
import type { CallRecord } from '../../src-main/core/call-record.js';

/** A secret no key-shape pattern of redact.ts knows: only the one redaction step's exact values can catch it. */
const plain = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

const SECRETS = {
  virtualKeySecret: plain('vksecret'),
  routeTargetSecret: plain('routesecret'),
  callerBearer: plain('callerbearer'),
  forwardedXApiKey: plain('fwdxapikey'),
  forwardedGoogKey: plain('fwdgoogkey'),
  forwardedCustomAuth: plain('fwdcustomauth'),
  namedHeaderInPrompt: plain('sessiontoken'),
  metadataNamed: plain('metanamed'),
  // Not named as a credential: known by its shape alone.
  metadataShaped: `sk-${randomBytes(12).toString('hex')}`,
  mcpSecretEnv: plain('mcpenv'),
  mcpSecretHeader: plain('mcpheader'),
  wrongGatewayKey: plain('wronggatewaykey'),
  wrongBearer: plain('wrongbearer'),
  wrongXApiKey: plain('wrongxapikey'),
  wrongGoogKey: plain('wronggoogkey'),
  wrongQueryKey: plain('wrongquerykey'),
};
type SecretName = keyof typeof SECRETS;

/**
 * Every column of request_log on either backend, and what it holds. A column not listed fails the suite:
 * add it here, and give its CallRecord field a treatment in core/redacted-record.ts.
 */
const KNOWN_COLUMNS = new Set([
  'id', 'created_at', 'trace_id', 'metadata', 'key_id', 'provider', 'model', 'served_model', 'path', 'status', 'latency_ms',
  'ttfb_ms', 'prompt_tokens', 'completion_tokens', 'stream', 'error', 'attempts', 'attempt_log', 'request_headers', 'request_body',
  'response_body', 'dialect_given', 'dialect', 'provider_format', 'dropped', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens',
  'route', 'route_target', 'target_key_id', 'cost_usd', 'client', 'day', 'request_count', 'usage_estimated', 'kind', 'mcp_server', 'mcp_tool',
  'session_id',
  // PostgreSQL only: the instance that served the call, and the search words (search-vector.ts).
  'instance_id', 'search',
]);

/** The kinds of row, told from a row's columns; a row of no known kind fails the suite. */
const ROW_KINDS = ['model', 'embeddings', 'mcp', 'refused'] as const;
function rowKind(row: Record<string, unknown>): (typeof ROW_KINDS)[number] {
  if (row.kind === 'mcp') return 'mcp';
  if (row.kind !== null && row.kind !== undefined) throw new Error(`A row of a kind this suite does not know: ${String(row.kind)}. Plant secrets in its calls here.`);
  // Refused before a key was accepted: no provider was chosen.
  if (row.status === 401 && row.key_id === null && row.provider === null) return 'refused';
  if (/embed/i.test(String(row.path))) return 'embeddings';
  return 'model';
}

/** A provider that repeats back the headers it was sent (the provider key among them) in an error. */
function echoError(status: number) {
  return (request: RecordedRequest, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: you sent ${JSON.stringify(request.headers)}`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
  };
}

/** The same, as an error event in a stream that began well. */
function echoStreamError(request: RecordedRequest, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'hel' }, finish_reason: null }] })}\n\n`);
  res.end(`data: ${JSON.stringify({ error: { message: `stream broke; your key was ${String(request.headers.authorization)}`, type: 'server_error' } })}\n\n`);
}

/** Every file under a directory, bytes and all (the database, its WAL and shared memory, anything else kept there). */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });
}

describe('the one redaction step (core/redacted-record.ts)', () => {
  it('blanks a secret in every field of a record that is not a number or a flag', () => {
    const secret = plain('everyfield');
    const planted = `before ${secret} after`;
    const values: Record<(typeof FIELDS)[keyof typeof FIELDS], (field: string) => unknown> = {
      kept: (field) => (field === 'stream' || field === 'unauthenticated' || field === 'usageEstimated' ? true : 7),
      text: () => planted,
      url: () => `/v1/x?note=${secret}&${planted}`,
      body: () => planted,
      texts: () => [planted],
      metadata: () => ({ note: planted }),
      headers: () => ({ 'x-note': planted }),
      attempts: () => [{ status: 500, error: planted, durationMs: 1, target: planted, reason: planted }],
      mcp: () => ({ server: planted, tool: planted, client: planted }),
      input: (field) => (field === 'secrets' ? [secret] : new Set<string>()),
    };
    const record = Object.fromEntries(Object.entries(FIELDS).map(([field, treatment]) => [field, values[treatment](field)])) as unknown as CallRecord;
    const stored = redactRecord(record, { keepBodies: true, maxBodyChars: 10_000 }) as unknown as Record<string, unknown>;
    const leaked = Object.keys(FIELDS).filter((field) => JSON.stringify(stored[field] ?? null).includes(secret));
    expect(leaked, 'fields stored with the secret in them').toEqual([]);
    for (const [field, treatment] of Object.entries(FIELDS)) {
      if (treatment === 'kept') expect(stored[field], field).toBe(record[field as keyof CallRecord]);
      else if (treatment === 'input') expect(field in stored, `${field} is an input of the redaction, never stored`).toBe(false);
      else expect(JSON.stringify(stored[field]), field).toContain(REDACTED);
    }
  });

  it('blanks a secret holding characters JSON escapes (a service account key) as sent and as echoed inside JSON', () => {
    // A PEM private key: newlines and a backslash; as a JSON string its escapes hold backslashes themselves,
    // which must be blanked once, not escaped again and again.
    const secret = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\\BgkqhkiG9w0B\n-----END PRIVATE KEY-----';
    const echoed = JSON.stringify({ error: { message: `bad key ${secret}` } });
    const neutral: Record<(typeof FIELDS)[keyof typeof FIELDS], () => unknown> = {
      kept: () => 1, text: () => 'x', url: () => '/v1/x', body: () => null, texts: () => [], metadata: () => ({}),
      headers: () => ({}), attempts: () => [], mcp: () => undefined, input: () => undefined,
    };
    const record = {
      ...Object.fromEntries(Object.entries(FIELDS).map(([field, treatment]) => [field, neutral[treatment]()])),
      responseBody: echoed, error: `raw ${secret}`, secrets: [secret],
    } as unknown as CallRecord;
    const stored = redactRecord(record, { keepBodies: true, maxBodyChars: 10_000 });
    expect(stored.responseBody).toBe(JSON.stringify({ error: { message: `bad key ${REDACTED}` } }));
    expect(stored.error).toBe(`raw ${REDACTED}`);
  });
});

describe('a body longer than the cut (cut with a margin, redacted, cut again)', () => {
  const neutral: Record<(typeof FIELDS)[keyof typeof FIELDS], () => unknown> = {
    kept: () => 1, text: () => 'x', url: () => '/v1/x', body: () => null, texts: () => [], metadata: () => ({}),
    headers: () => ({}), attempts: () => [], mcp: () => undefined, input: () => undefined,
  };
  const recordWith = (requestBody: string, secrets: string[]) =>
    ({ ...Object.fromEntries(Object.entries(FIELDS).map(([field, treatment]) => [field, neutral[treatment]()])), requestBody, secrets }) as unknown as CallRecord;
  const MAX = 4_000;

  it('keeps no part of a secret or a key shape that straddles the cut, wherever it starts, with redactions before it that shrink or grow the text', () => {
    const secret = plain('straddling');
    const keyShape = `sk-ant-${randomBytes(24).toString('hex')}`;
    // A long secret blanked many times before the cut shrinks the text; a short one (8 characters, shorter
    // than the marker) and `?key=x` values grow it.
    const long = plain('longsecret').repeat(4);
    const short = randomBytes(4).toString('hex');
    const fillers = { plain: '', shrinking: `${long} `.repeat(20), growing: `${short} ?key=x `.repeat(120) };
    for (const [kind, filler] of Object.entries(fillers)) {
      for (const planted of [secret, keyShape]) {
        for (let start = MAX - planted.length - 2; start <= MAX + 2; start++) {
          // A space before it: a key shape is one only as a word of its own.
          const head = `${filler}${'a'.repeat(Math.max(0, start - filler.length))}`.slice(0, start - 1) + ' ';
          // And again every 100 characters after it: one of them straddles wherever the redacted part ends.
          const body = `${head}${planted}${` ${'b'.repeat(100)} ${planted}`.repeat(200)}`;
          const stored = redactRecord(recordWith(body, [secret, long, short]), { keepBodies: true, maxBodyChars: MAX }).requestBody!;
          const fragments = [planted.slice(0, 8), planted.slice(-8), long.slice(0, 8), short];
          for (const fragment of fragments) expect(stored.includes(fragment), `${kind} filler, ${planted === secret ? 'secret' : 'key shape'} at ${start}: '${fragment}' stored`).toBe(false);
          expect(stored.length).toBeLessThanOrEqual(MAX + 60);
          expect(stored).toMatch(/\n… \[\d+ more characters not stored\]$/);
        }
      }
    }
  });

  it('costs the same for a 1 MiB and an 8 MiB body: only the stored part is scanned, once per secret', async () => {
    const secrets = Array.from({ length: 32 }, (_, i) => plain(`scan${i}`));
    const growth = await measureGrowth({
      path: 'redactRecord: a body far over the cut, 32 secrets',
      n: 1024 * 1024,
      build: (n) => recordWith(`${'{"role":"user","content":"hello there"},'.repeat(Math.ceil(n / 40))}`, secrets),
      run: (record) => redactRecord(record, { keepBodies: true, maxBodyChars: 256 * 1024 }),
    });
    // A scan of the whole body grows ×8 with it; the cut part alone stays at ×1 (up to the noise of a busy machine).
    expect(growth.ratio, describeGrowth(growth)).toBeLessThan(3);
  });
});

describe.each(backends())('on $name', (backend) => {
  let gateway: TestGateway;
  let fake: OpenAIFake;
  let remote: McpHttpTestServer;
  const events: string[] = [];
  const stopEvents = new AbortController();
  let rows: Record<string, unknown>[];

  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (response) => ({
      status: response.status,
      text: await response.text(),
    }));
  const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });

  beforeAll(async () => {
    [gateway, fake, remote] = await Promise.all([backend.gateway({ refusalWindowMs: 100 }), startOpenAIFake(), startMcpHttpServer('remote')]);
    const created = async (path: string, body: object) => {
      const response = await gateway.admin(path, { method: 'POST', body: JSON.stringify(body) });
      expect(response.status, await response.clone().text()).toBe(201);
      return (await response.json()) as { key?: string };
    };
    const { key: virtualKey } = await created('/virtual-keys', { name: 'sealed', provider: 'openai', secret: SECRETS.virtualKeySecret, customHost: fake.baseUrl });
    await created('/virtual-keys', { name: 'route-target', provider: 'openai', secret: SECRETS.routeTargetSecret, customHost: fake.baseUrl });
    await created('/routes', { name: 'leaky-route', match: 'leaky-route', strategy: 'fallback', targets: [{ key: 'route-target', model: 'gpt-4o-mini' }] });
    await addMcpServer(gateway, { name: 'leaky', ...stdioServerCommand('leaky'), secretEnv: { SERVICE_TOKEN: SECRETS.mcpSecretEnv } });
    await addMcpServer(gateway, { name: 'remote', transport: 'http', url: remote.url, secretHeaders: { 'x-service-token': SECRETS.mcpSecretHeader } });

    const live = await gateway.admin('/events', { signal: stopEvents.signal });
    const reader = live.body!.getReader();
    void (async () => {
      for (let part = await reader.read(); !part.done; part = await reader.read()) events.push(new TextDecoder().decode(part.value));
    })().catch(() => undefined);

    const byVirtualKey = { authorization: `Bearer ${virtualKey!}` };
    // Model calls: the sealed secret echoed in an error body and in a streamed error.
    fake.enqueue(echoError(401));
    expect((await post('/v1/chat/completions', { ...byVirtualKey, 'x-gateway-trace-id': 'redact-vk-error' }, chat('hi'))).status).toBe(401);
    fake.enqueue(echoStreamError);
    expect((await post('/v1/chat/completions', { ...byVirtualKey, 'x-gateway-trace-id': 'redact-vk-stream' }, chat('hi', { stream: true }))).status).toBe(200);
    // Embeddings: the same echo.
    fake.enqueue(echoError(401));
    expect((await post('/v1/embeddings', { ...byVirtualKey, 'x-gateway-trace-id': 'redact-embeddings' }, { model: 'text-embedding-3-small', input: 'hi' })).status).toBe(401);
    // A route target's sealed secret.
    fake.enqueue(echoError(401));
    expect((await post('/v1/chat/completions', { 'x-gateway-api-key': TEST_GATEWAY_KEY, 'x-gateway-trace-id': 'redact-route' }, { ...chat('hi'), model: 'leaky-route' })).status).toBe(401);
    // Keys the client sends for the provider, echoed back; a header named as a credential quoted in the prompt.
    fake.enqueue(echoError(401));
    const direct = await post(
      '/v1/chat/completions',
      {
        'x-gateway-api-key': TEST_GATEWAY_KEY,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.baseUrl,
        'x-gateway-trace-id': 'redact-direct',
        authorization: `Bearer ${SECRETS.callerBearer}`,
        'x-gateway-forward-headers': 'x-api-key, x-goog-api-key, x-custom-auth',
        'x-api-key': SECRETS.forwardedXApiKey,
        'x-goog-api-key': SECRETS.forwardedGoogKey,
        'x-custom-auth': SECRETS.forwardedCustomAuth,
        'x-session-token': SECRETS.namedHeaderInPrompt,
      },
      chat(`my session token is ${SECRETS.namedHeaderInPrompt}`),
    );
    expect(direct.status).toBe(401);
    // The agent session a client names (session_id): here a credential's value, named as such by its header.
    fake.enqueue(echoError(401));
    const namedSession = await post(
      '/v1/chat/completions',
      {
        'x-gateway-api-key': TEST_GATEWAY_KEY,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.baseUrl,
        'x-session-token': SECRETS.namedHeaderInPrompt,
        'x-claude-code-session-id': SECRETS.namedHeaderInPrompt,
      },
      chat('hello'),
    );
    expect(namedSession.status).toBe(401);
    // Metadata: an entry named as a credential, and one shaped as a key.
    const withMetadata = await post(
      '/v1/chat/completions',
      {
        'x-gateway-api-key': TEST_GATEWAY_KEY,
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.baseUrl,
        'x-gateway-trace-id': 'redact-metadata',
        'x-gateway-metadata': JSON.stringify({ team: 'search', api_key: SECRETS.metadataNamed, note: `uses ${SECRETS.metadataShaped}` }),
      },
      chat('hi'),
    );
    expect(withMetadata.status).toBe(200);
    // Wrong gateway keys, each way a key is read; twice each, so the coalesced refusal rows are written too.
    const chatPath = '/v1/chat/completions';
    const geminiPath = '/v1beta/models/gemini-2.5-flash:generateContent';
    const geminiBody = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    for (let i = 0; i < 2; i++) {
      expect((await post(chatPath, { 'x-gateway-api-key': SECRETS.wrongGatewayKey }, chat('hi'))).status).toBe(401);
      expect((await post('/v1/embeddings', { authorization: `Bearer ${SECRETS.wrongBearer}` }, { model: 'text-embedding-3-small', input: 'hi' })).status).toBe(401);
      expect((await post('/v1/messages', { 'x-api-key': SECRETS.wrongXApiKey }, { model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(401);
      expect((await post(geminiPath, { 'x-goog-api-key': SECRETS.wrongGoogKey }, geminiBody)).status).toBe(401);
      expect((await post(`${geminiPath}?key=${SECRETS.wrongQueryKey}`, {}, geminiBody)).status).toBe(401);
    }
    // MCP: each server's secrets in a tool's output, a tool's error and a JSON-RPC error.
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    try {
      // A resource is found by the list it was last seen in.
      await client.listResources();
      for (const server of ['leaky', 'remote']) {
        expect(textOf(await client.callTool({ name: `${server}__leak`, arguments: {} }))).toContain(`${server} holds`);
        expect((await client.callTool({ name: `${server}__leak_fail`, arguments: {} })).isError).toBe(true);
        await expect(client.readResource({ uri: `memo://${server}/leak` })).rejects.toThrow(/cannot be read/);
      }
    } finally {
      await client.close();
    }
    // The refusal windows close, their rows are queued; then everything is written.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await gateway.flushLog();
    rows = await backend.sql(gateway, 'SELECT * FROM request_log ORDER BY id');
  }, 120_000);

  afterAll(async () => {
    stopEvents.abort();
    await Promise.all([gateway?.close(), fake?.close(), remote?.close()]);
    await backend.close();
  }, 60_000);

  /** Where each secret turns up in a text, as "secret in place". */
  const leaksIn = (place: string, text: string): string[] =>
    (Object.keys(SECRETS) as SecretName[]).filter((name) => text.includes(SECRETS[name])).map((name) => `${name} in ${place}`);

  it('knows every column of the log and every kind of row, and the calls made rows of each kind', async () => {
    const columns =
      backend.name === 'SQLite'
        ? (await backend.sql<{ name: string }>(gateway, "SELECT name FROM pragma_table_xinfo('request_log')")).map((column) => column.name)
        : (await backend.sql<{ column_name: string }>(gateway, "SELECT column_name FROM information_schema.columns WHERE table_name = 'request_log'")).map((column) => column.column_name);
    expect(columns.length).toBeGreaterThan(30);
    expect(columns.filter((column) => !KNOWN_COLUMNS.has(column)), 'a request_log column this suite does not know: add it to KNOWN_COLUMNS and plant a secret that reaches it').toEqual([]);
    expect(new Set(rows.map(rowKind))).toEqual(new Set(ROW_KINDS));
  });

  it('keeps every secret out of every column of every row, and shows where each was blanked', () => {
    expect(rows.flatMap((row) => Object.entries(row).flatMap(([column, value]) => leaksIn(`${column} of row ${String(row.id)} (${rowKind(row)} ${String(row.path)})`, String(value))))).toEqual([]);
    // The secrets did reach the rows: each was blanked where it came in.
    const row = (match: (row: Record<string, unknown>) => boolean) => {
      const found = rows.filter(match);
      expect(found.length).toBeGreaterThan(0);
      return found.map((each) => JSON.stringify(each)).join('\n');
    };
    const byTrace = (trace: string) => row((each) => each.trace_id === trace);
    const blanked = (text: string, times: number) => expect(text.split(REDACTED).length - 1).toBeGreaterThanOrEqual(times);
    blanked(byTrace('redact-vk-error'), 2); // the echoed Authorization in the error column and the response body
    blanked(byTrace('redact-vk-stream'), 1);
    blanked(byTrace('redact-embeddings'), 2);
    blanked(byTrace('redact-route'), 2);
    blanked(byTrace('redact-direct'), 8); // four headers stored, their four echoes, the prompt
    blanked(byTrace('redact-metadata'), 3); // two metadata entries, and the metadata header that carried them
    blanked(row((each) => each.kind === 'mcp' && String(each.mcp_tool).startsWith('leak')), 1);
    for (const server of ['leaky', 'remote']) {
      for (const tool of ['leak', 'leak_fail', `memo://${server}/leak`]) blanked(row((each) => each.mcp_server === server && each.mcp_tool === tool), 1);
    }
    // The refusals: a first row and a coalesced one for each way a wrong key came.
    expect(rows.filter((each) => rowKind(each) === 'refused').length).toBeGreaterThanOrEqual(8);
  });

  it('keeps every secret out of every table and every file of the data dir', async () => {
    if (backend.name === 'SQLite') {
      // The database file, its WAL (the rows just written are there, not checkpointed yet), anything else.
      const files = filesUnder(gateway.dataDir);
      expect(files.some((file) => file.path.endsWith('-wal') && file.bytes.length > 0)).toBe(true);
      expect(files.flatMap((file) => leaksIn(file.path, file.bytes.toString('latin1')))).toEqual([]);
      const tables = await backend.sql<{ name: string }>(gateway, "SELECT name FROM sqlite_master WHERE type = 'table'");
      for (const { name } of tables) {
        const all = await backend.sql(gateway, `SELECT * FROM "${name}"`);
        expect(leaksIn(`table ${name}`, JSON.stringify(all))).toEqual([]);
      }
    } else {
      expect(filesUnder(gateway.dataDir).flatMap((file) => leaksIn(file.path, file.bytes.toString('latin1')))).toEqual([]);
      const tables = await backend.sql<{ table_name: string }>(gateway, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
      expect(tables.length).toBeGreaterThan(5);
      for (const { table_name: name } of tables) {
        const all = await backend.sql<{ row: string }>(gateway, `SELECT t::text AS row FROM "${name}" AS t`);
        expect(leaksIn(`table ${name}`, all.map((each) => each.row).join('\n'))).toEqual([]);
      }
    }
  });

  it('keeps every secret out of the admin API: the log list, each entry, both exports, the live log', async () => {
    const listed = (await (await gateway.admin('/logs?limit=500')).json()) as { items: { id: string }[] };
    expect(listed.items.length).toBe(rows.length);
    const details = await Promise.all(listed.items.map(async (item) => (await gateway.admin(`/logs/${item.id}`)).text()));
    expect(leaksIn('the log list', JSON.stringify(listed))).toEqual([]);
    expect(leaksIn('the log entries', details.join('\n'))).toEqual([]);
    for (const format of ['csv', 'jsonl']) {
      const exported = await (await gateway.admin(`/logs/export?format=${format}`)).text();
      expect(exported.split('\n').length).toBeGreaterThan(rows.length);
      expect(leaksIn(`the ${format} export`, exported)).toEqual([]);
    }
    const live = events.join('');
    // The live log told of every row (each entry's trace id is in it).
    for (const row of rows) expect(live).toContain(String(row.trace_id));
    expect(leaksIn('the live log', live)).toEqual([]);
  });

  it('finds no row by any secret in the log search, though it finds rows by what they do hold', async () => {
    const search = async (q: string) => ((await (await gateway.admin(`/logs?q=${encodeURIComponent(q)}`)).json()) as { items: unknown[] }).items.length;
    expect(await search('redact-direct')).toBeGreaterThan(0);
    // An MCP server's error text is searched: the words around its blanked secrets are found.
    expect(await search('holding')).toBeGreaterThan(0);
    const found: string[] = [];
    for (const name of Object.keys(SECRETS) as SecretName[]) if ((await search(SECRETS[name])) > 0) found.push(name);
    expect(found).toEqual([]);
  });
});
