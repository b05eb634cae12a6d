// The Logs page's "who did what" filters of GET /admin/api/logs and its export, on both backends against
// a real gateway, the OpenAI double and an MCP server: by key, by kind (model, embeddings, mcp), by MCP
// server and tool, by metadata name=value, and (team mode) by the instance that served the call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.js';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { addMcpServer, connectMcp } from '../helpers/mcp.js';

interface Row {
  id: string;
  traceId: string;
  keyId: string | null;
  kind: string;
  server: string | null;
  tool: string | null;
  status: number;
  metadata: Record<string, string>;
  instance?: string | null;
  instanceName?: string | null;
}

let fake: OpenAIFake;
let tools: McpHttpTestServer;

beforeAll(async () => {
  [fake, tools] = await Promise.all([startOpenAIFake(), startMcpHttpServer('tools')]);
});
afterAll(async () => {
  await Promise.all([fake?.close(), tools?.close()]);
});

async function createKey(gateway: TestGateway, name: string): Promise<{ id: string; key: string }> {
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-1234567890`, customHost: fake.baseUrl }) });
  expect(created.status).toBe(201);
  return (await created.json()) as { id: string; key: string };
}

async function call(gateway: TestGateway, key: string, path: string, body: unknown, traceId: string, metadata: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-trace-id': traceId, 'x-gateway-metadata': JSON.stringify(metadata) },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  await response.text();
}

async function list(gateway: TestGateway, query: string): Promise<{ status: number; items: Row[]; error?: { message: string; param?: string } }> {
  const response = await gateway.admin(`/logs?limit=500&${query}`);
  const body = (await response.json()) as { items?: Row[]; error?: { message: string; param?: string } };
  return { status: response.status, items: body.items ?? [], error: body.error };
}

const traces = (rows: Row[]) => rows.map((row) => row.traceId).sort();

describe.each(backends())('Logs filters on $name', (backend) => {
  let gateway: TestGateway;
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };

  beforeAll(async () => {
    gateway = await backend.gateway();
    [alice, bob] = [await createKey(gateway, 'alice'), await createKey(gateway, 'bob')];
    await addMcpServer(gateway, { name: 'tools', transport: 'http', url: tools.url });
    await call(gateway, alice.key, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, 'alice-chat', { team: 'search', user: 'ada' });
    await call(gateway, alice.key, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'hi' }, 'alice-embed', { team: 'search' });
    await call(gateway, bob.key, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'yo' }] }, 'bob-chat', { team: 'ads', user: 'ada' });
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    await client.callTool({ name: 'tools__echo', arguments: { text: 'x' } });
    await client.close();
    await gateway.flushLog();
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await backend.close();
  });

  it('narrows to one key: its calls only, by id', async () => {
    expect(traces((await list(gateway, `key=${alice.id}`)).items)).toEqual(['alice-chat', 'alice-embed']);
    expect(traces((await list(gateway, `key=${bob.id}`)).items)).toEqual(['bob-chat']);
    expect((await list(gateway, 'key=vk_nobody')).items).toEqual([]);
  });

  it('tells model calls, embeddings and MCP calls apart', async () => {
    expect(traces((await list(gateway, 'kind=model')).items)).toEqual(['alice-chat', 'bob-chat']);
    expect(traces((await list(gateway, 'kind=embeddings')).items)).toEqual(['alice-embed']);
    const mcp = (await list(gateway, 'kind=mcp')).items;
    expect(mcp).toEqual([expect.objectContaining({ kind: 'mcp', server: 'tools', tool: 'echo', status: 200 })]);
    expect((await list(gateway, 'kind=mcp&server=tools&tool=echo')).items).toHaveLength(1);
    expect((await list(gateway, 'kind=mcp&server=tools&tool=slow')).items).toHaveLength(0);
    // With the key filter: one key's embeddings.
    expect(traces((await list(gateway, `kind=embeddings&key=${bob.id}`)).items)).toEqual([]);
  });

  it('matches metadata name=value exactly, every pair given', async () => {
    expect(traces((await list(gateway, 'metadata=team%3Dsearch')).items)).toEqual(['alice-chat', 'alice-embed']);
    expect(traces((await list(gateway, 'metadata=user%3Dada')).items)).toEqual(['alice-chat', 'bob-chat']);
    expect(traces((await list(gateway, 'metadata=user%3Dada&metadata=team%3Dads')).items)).toEqual(['bob-chat']);
    // A value is matched whole, not as a prefix; a name with another's value matches nothing.
    expect((await list(gateway, 'metadata=team%3Dsea')).items).toEqual([]);
    expect((await list(gateway, 'metadata=user%3Dsearch')).items).toEqual([]);
    // Quotes and JSON in a name or value are data.
    expect((await list(gateway, `metadata=${encodeURIComponent('a"b=}{')}`)).items).toEqual([]);
  });

  it('refuses a malformed kind or metadata pair with a 400 naming the parameter', async () => {
    const kind = await list(gateway, 'kind=tools');
    expect(kind.status).toBe(400);
    expect(kind.error?.param).toBe('kind');
    const pair = await list(gateway, 'metadata=team');
    expect(pair.status).toBe(400);
    expect(pair.error?.param).toBe('metadata');
  });

  it('exports the filtered rows with their metadata, kind, server, tool and instance', async () => {
    const response = await gateway.admin(`/logs/export?format=jsonl&key=${alice.id}`);
    const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.traceId).sort()).toEqual(['alice-chat', 'alice-embed']);
    expect(lines.find((line) => line.traceId === 'alice-chat')).toMatchObject({ keyName: 'alice', kind: 'model', metadata: { team: 'search', user: 'ada' } });
    const mcp = (await (await gateway.admin('/logs/export?format=csv&kind=mcp')).text()).trim().split('\r\n');
    const header = mcp[0].split(',');
    expect(header).toEqual(expect.arrayContaining(['kind', 'server', 'tool', 'instance', 'metadata']));
    const cells = mcp[1].split(',');
    expect(cells[header.indexOf('server')]).toBe('tools');
    expect(cells[header.indexOf('tool')]).toBe('echo');
    expect(cells[header.indexOf('kind')]).toBe('mcp');
  });

  if (backend.name === 'SQLite') {
    it('has no instances on the desktop: an instance filter matches no row', async () => {
      expect((await list(gateway, 'instance=anything')).items).toEqual([]);
    });
  }
});

describe.skipIf(!backends().some((backend) => backend.name === 'PostgreSQL'))('Logs instance filter in team mode (PostgreSQL)', () => {
  let postgres: TestPostgres;
  let url: string;
  const started: TestGateway[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    url = await postgres.newDatabase();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.close().catch(() => undefined)));
    await postgres?.close();
  });

  it('names each row by the instance that served it, and filters by that name across restarts', { timeout: 60_000 }, async () => {
    // One instance at a time (no Redis): "east", then "west", then "east" again after a restart.
    const names = ['east', 'west', 'east'];
    let key = '';
    for (const [index, name] of names.entries()) {
      const gateway = await startGateway({ databaseUrl: url, env: { GATEHOUSE_INSTANCE_NAME: name } });
      if (!key) key = (await createKey(gateway, 'team')).key;
      await call(gateway, key, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, `call-${index}-${name}`);
      await gateway.flushLog();
      const health = (await (await gateway.admin('/health')).json()) as { instanceName?: string };
      expect(health.instanceName).toBe(name);
      if (index < names.length - 1) await gateway.close();
      else started.push(gateway);
    }
    const gateway = started[0];
    const east = (await list(gateway, 'instance=east')).items;
    expect(traces(east)).toEqual(['call-0-east', 'call-2-east']);
    expect(new Set(east.map((row) => row.instanceName))).toEqual(new Set(['east']));
    // Two runs of "east": two instance ids under one name.
    expect(new Set(east.map((row) => row.instance)).size).toBe(2);
    expect(traces((await list(gateway, 'instance=west')).items)).toEqual(['call-1-west']);
    expect((await list(gateway, 'instance=north')).items).toEqual([]);
    const detail = (await (await gateway.admin(`/logs/${east[0].id}`)).json()) as Row;
    expect(detail.instanceName).toBe('east');
  });
});
