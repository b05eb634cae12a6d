// The routes admin API and `gatehouse routes` on the data dir of a running gateway: create, change, order,
// delete, replace from a file, export, explain; refusals that name the field; the log's route filter
// and each route's last served target, on each storage backend; a new virtual key lends its credentials to
// no other key's call until allowed, on each backend; the CLI's import/export round trip in JSON and YAML.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runRoutesCommand } from '../../src-main/cli/routes.js';
import { PgBridge } from '../../src-main/store-postgres/pg-bridge.js';
import type { TestGateway } from '../helpers/gateway.js';
import { backends } from '../helpers/backends.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let gateway: TestGateway;
let fake: OpenAIFake;
let revokedId: string;

interface RouteBody {
  id: string;
  name: string;
  match: string;
  position: number;
  targets: { key: string; model?: string }[];
  lastServed: { key: string; model: string; at: string } | null;
}

async function json<T>(response: Response | Promise<Response>): Promise<T> {
  return (await (await response).json()) as T;
}

describe.each(backends())('on $name', (backend) => {
  beforeAll(async () => {
    [gateway, fake] = await Promise.all([backend.gateway(), startOpenAIFake()]);
    for (const name of ['groq', 'together', 'local-ollama', 'anthropic-main', 'gemini', 'retired']) {
      const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-0123456789`, customHost: fake.baseUrl }) });
      const created = await json<{ id: string }>(response);
      if (name === 'retired') revokedId = created.id;
    }
    await gateway.admin(`/virtual-keys/${revokedId}`, { method: 'DELETE' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([gateway?.close(), fake?.close()]);
    await backend.close();
  }, 30_000);

  const post = (body: unknown) => gateway.admin('/routes', { method: 'POST', body: JSON.stringify(body) });

  describe('admin API', () => {
    it('creates, lists in order, changes, reorders and deletes routes', async () => {
      const fast = await json<RouteBody>(post({ name: 'fast', match: 'fast', strategy: 'balance', targets: [{ key: 'groq', model: 'llama-3.3-70b-versatile', weight: 2 }, { key: 'together', weight: 1 }] }));
      const haiku = await json<RouteBody>(post({ name: 'background', match: 'claude-haiku-*', strategy: 'fallback', targets: [{ key: 'local-ollama', model: 'qwen3-coder:30b', timeout_ms: 30000 }] }));
      expect(fast).toMatchObject({ name: 'fast', position: 0, lastServed: null });
      expect(haiku.position).toBe(1);

      const changed = await gateway.admin(`/routes/${haiku.id}`, { method: 'PATCH', body: JSON.stringify({ targets: [{ key: 'local-ollama', model: 'qwen3-coder:30b' }, { key: 'anthropic-main' }] }) });
      expect(changed.status).toBe(200);
      expect((await json<RouteBody>(changed)).targets).toHaveLength(2);

      const ordered = await json<{ items: RouteBody[] }>(gateway.admin('/routes/order', { method: 'PUT', body: JSON.stringify({ ids: [haiku.id, fast.id] }) }));
      expect(ordered.items.map((route) => route.name)).toEqual(['background', 'fast']);
      expect((await json<{ items: RouteBody[] }>(gateway.admin('/routes'))).items.map((route) => route.name)).toEqual(['background', 'fast']);

      expect((await gateway.admin(`/routes/${fast.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await gateway.admin(`/routes/${fast.id}`, { method: 'DELETE' })).status).toBe(404);
    });

    it('refuses, naming the field: a shadowed route, a revoked key, an unknown key, an empty target list, a duplicate name', async () => {
      const cases: [unknown, string, string][] = [
        [{ name: 'haiku-too', match: 'claude-haiku-4-5', targets: [{ key: 'groq' }] }, 'match', 'can never match'],
        [{ name: 'old', match: 'old-*', targets: [{ key: 'retired' }] }, 'targets[0].key', 'revoked'],
        [{ name: 'ghost', match: 'ghost', targets: [{ key: 'groq' }, { key: 'nobody' }] }, 'targets[1].key', "no virtual key is named 'nobody'"],
        [{ name: 'empty', match: 'empty', targets: [] }, 'targets', 'no targets'],
        [{ name: 'background', match: 'other', targets: [{ key: 'groq' }] }, 'name', 'already used'],
        [{ name: 'heavy', match: 'heavy', strategy: 'balance', targets: [{ key: 'groq', weight: -1 }] }, 'targets[0].weight', 'above 0'],
        [{ name: 'chain', match: 'chain', targets: [{ key: 'groq', model: 'claude-haiku-4-5' }] }, 'targets[0].model', "route 'background'"],
      ];
      for (const [body, param, words] of cases) {
        const response = await post(body);
        const error = await json<{ error: { param: string; message: string } }>(response);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(error.error.param).toBe(param);
        expect(error.error.message).toContain(words);
      }
    });

    it('replaces every route from a file, all or nothing, and exports the same file', async () => {
      const file = {
        routes: [
          { name: 'background', match: 'claude-haiku-*', strategy: 'fallback', targets: [{ key: 'local-ollama', model: 'qwen3-coder:30b', timeout_ms: 30000 }, { key: 'anthropic-main' }] },
          { name: 'fast', match: 'fast', strategy: 'balance', targets: [{ key: 'groq', model: 'llama-3.3-70b-versatile', weight: 2 }, { key: 'together', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', weight: 1 }] },
          { name: 'long', match: 'claude-sonnet-*', strategy: 'fallback', targets: [{ key: 'gemini', model: 'gemini-2.5-pro', when: { min_prompt_tokens: 60000 } }, { key: 'anthropic-main' }] },
        ],
      };
      const bad = { routes: [...file.routes, { name: 'broken', match: 'x', strategy: 'fallback', targets: [{ key: 'retired' }] }] };
      const refused = await gateway.admin('/routes', { method: 'PUT', body: JSON.stringify(bad) });
      expect(refused.status).toBe(400);
      expect((await json<{ error: { param: string } }>(refused)).error.param).toBe('routes[3].targets[0].key');
      expect((await json<{ items: RouteBody[] }>(gateway.admin('/routes'))).items.map((route) => route.name)).toEqual(['background']);

      const replaced = await gateway.admin('/routes', { method: 'PUT', body: JSON.stringify(file) });
      expect(replaced.status).toBe(200);
      expect(await json(gateway.admin('/routes/export'))).toEqual(file);
    });

    it('explains what the router would do', async () => {
      const explained = await json(gateway.admin('/routes/explain', { method: 'POST', body: JSON.stringify({ model: 'claude-sonnet-4', promptTokens: 100 }) }));
      expect(explained).toEqual({
        route: 'long',
        strategy: 'fallback',
        targets: [
          { key: 'gemini', model: 'gemini-2.5-pro', eligible: false, reason: 'needs at least 60000 prompt tokens (about 100)' },
          { key: 'anthropic-main', model: 'claude-sonnet-4', eligible: true, reason: null },
        ],
      });
      expect((await gateway.admin('/routes/explain', { method: 'POST', body: JSON.stringify({}) })).status).toBe(400);
    });

    it('the log filters by route, and each route shows the target that served it last', async () => {
      const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
        body: JSON.stringify({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      await gateway.flushLog();
      const logs = await json<{ items: { route: string; routeTarget: string }[] }>(gateway.admin('/logs?route=background'));
      expect(logs.items).toHaveLength(1);
      expect(logs.items[0]).toMatchObject({ route: 'background', routeTarget: 'local-ollama → qwen3-coder:30b' });
      expect((await json<{ items: unknown[] }>(gateway.admin('/logs?route=fast'))).items).toHaveLength(0);
      const routes = await json<{ items: RouteBody[] }>(gateway.admin('/routes'));
      expect(routes.items[0].lastServed).toMatchObject({ key: 'local-ollama', model: 'qwen3-coder:30b' });
    });

    it("a new virtual key does not lend its credentials to other keys' calls until it is allowed to (allowRouting off by default)", async () => {
      const create = async (name: string) => {
        const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-0123456789`, customHost: fake.baseUrl }) });
        expect(response.status).toBe(201);
        return json<{ id: string; key: string; allowRouting: boolean }>(response);
      };
      const lender = await create('lender-default');
      const borrower = await create('borrower-default');
      expect(lender.allowRouting).toBe(false);
      expect((await json<{ allowRouting: boolean }>(gateway.admin(`/virtual-keys/${lender.id}`))).allowRouting).toBe(false);
      expect((await post({ name: 'lend-default', match: 'lend-default-*', targets: [{ key: 'lender-default', model: 'gpt-4o-mini' }] })).status).toBe(201);
      const call = () =>
        fetch(`${gateway.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${borrower.key}` },
          body: JSON.stringify({ model: 'lend-default-1', messages: [{ role: 'user', content: 'hi' }] }),
        });
      const sent = fake.requests.length;
      const refused = await call();
      expect(refused.status).toBe(403);
      expect((await json<{ error: { code: string } }>(refused)).error.code).toBe('routing_not_allowed');
      expect(fake.requests.length).toBe(sent);
      // Allowed by its owner, the same call is served with the lender's credentials.
      expect((await gateway.admin(`/virtual-keys/${lender.id}`, { method: 'PATCH', body: JSON.stringify({ allowRouting: true }) })).status).toBe(200);
      await vi.waitFor(async () => expect((await call()).status).toBe(200), { timeout: 5_000, interval: 50 });
      expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-lender-default-0123456789');
    });

    it.runIf(backend.name === 'PostgreSQL')('lists every route with its last served target in one query', async () => {
      const queries = vi.spyOn(PgBridge.prototype, 'runForAdmin');
      try {
        const routes = await json<{ items: RouteBody[] }>(gateway.admin('/routes'));
        expect(routes.items.length).toBeGreaterThan(1);
        expect(routes.items.find((route) => route.name === 'background')?.lastServed).toMatchObject({ key: 'local-ollama' });
        // Only the statements that read routes: other admin reads (the limits and allow-list reloads a change
        // starts, on their own timers) may go through the same bridge meanwhile.
        const routeQueries = queries.mock.calls.filter(([statements]) => statements.some((statement) => /\broutes\b/.test(statement.sql)));
        expect(routeQueries).toHaveLength(1);
      } finally {
        queries.mockRestore();
      }
    });
  });

  // The CLI edits a data dir's SQLite file; team mode's routes are edited through the admin API.
  describe.runIf(backend.name === 'SQLite')('gatehouse routes (CLI) on the running gateway’s data dir', () => {
    async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await runRoutesCommand([...args, '--data-dir', gateway.dataDir], { stdout, stderr, env: {} });
      return { code, out, err };
    }
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-routes-files-'));

    it('export → import round-trips, in JSON and in YAML', async () => {
      const json = await cli('export');
      expect(json.code).toBe(0);
      const yaml = await cli('export', '--format', 'yaml');
      expect(parseYaml(yaml.out)).toEqual(JSON.parse(json.out));
      expect(yaml.out).toContain('match: claude-haiku-*');

      writeFileSync(join(dir, 'routes.yaml'), yaml.out);
      expect((await cli('import', join(dir, 'routes.yaml'))).code).toBe(0);
      expect((await cli('export')).out).toBe(json.out);
      writeFileSync(join(dir, 'routes.json'), json.out);
      expect((await cli('import', join(dir, 'routes.json'))).code).toBe(0);
      expect((await cli('export')).out).toBe(json.out);
    });

    it('import is all or nothing, and its error names the line', async () => {
      const before = (await cli('export')).out;
      const yaml = ['routes:', '  - name: ok', '    match: ok', '    strategy: fallback', '    targets:', '      - key: groq', '  - name: bad', '    match: bad', '    strategy: fallback', '    targets:', '      - key: groq', '      - key: retired', ''].join('\n');
      writeFileSync(join(dir, 'bad.yaml'), yaml);
      const result = await cli('import', join(dir, 'bad.yaml'));
      expect(result.code).toBe(1);
      expect(result.err).toContain('bad.yaml:12: routes[1].targets[1].key');
      expect(result.err).toContain('revoked');
      expect((await cli('export')).out).toBe(before);

      writeFileSync(join(dir, 'bad.json'), '{"routes": [\n  {"name": "x", "match": "x", "strategy": "fallback",\n   "targets": [{"key": "groq", "weight": "two"}]}\n]}');
      expect((await cli('import', join(dir, 'bad.json'))).err).toContain('bad.json:3: routes[0].targets[0].weight');
      writeFileSync(join(dir, 'broken.json'), '{"routes": [\n  {"name": "x",,}\n]}');
      expect((await cli('import', join(dir, 'broken.json'))).err).toMatch(/broken\.json:2: not valid JSON or YAML/);
    });

    it('add and remove reach the running gateway within a second', async () => {
      const added = await cli('add', '--name', 'cli-route', '--match', 'cli-*', '--strategy', 'fallback', '--target', 'groq=from-cli,timeout_ms=5000', '--target', 'together');
      expect(added.code, added.err).toBe(0);
      const listed = await cli('list');
      expect(listed.out).toContain('cli-route  cli-*  fallback');
      expect(listed.out).toContain('groq → from-cli (timeout 5000 ms)');

      const send = () =>
        fetch(`${gateway.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
          body: JSON.stringify({ model: 'cli-1', messages: [{ role: 'user', content: 'hi' }] }),
        });
      const started = Date.now();
      let response = await send();
      while (response.status !== 200 && Date.now() - started < 1500) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        response = await send();
      }
      expect(response.status).toBe(200);
      expect(fake.requests.at(-1)!.json.model).toBe('from-cli');

      expect((await cli('remove', 'cli-route')).code).toBe(0);
      expect((await cli('remove', 'cli-route')).err).toContain("No route named 'cli-route'");
      const badTarget = await cli('add', '--name', 'x', '--match', 'x', '--target', 'groq,speed=9');
      expect(badTarget.code).toBe(2);
      expect(badTarget.err).toContain("unknown option 'speed'");
    });
  });
});
