// Keys that cannot be borrowed (issue 21): a route that serves a call with another key's credentials
// admits and charges the call against that key's own limits as well as the caller's; a target over its
// limit is skipped like a failing one, and with none left the client gets that limit's 429; a virtual
// key's call reaches another key's credentials only when that key allows routing (403 otherwise, and
// the provider hears nothing), while gateway keys and the key itself always do.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_MASTER_KEY, type TestGateway } from '../helpers/gateway.js';
import { defaultAnswer, startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import type { Behaviour } from '../fakes/recording-server.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { runKeysCommand } from '../../src-main/cli/keys.js';
import { runInProcess, type CliResult } from '../helpers/cli-in-process.js';

let gateway: TestGateway;
let anthropic: AnthropicFake;
let local: OpenAIFake;
/** A virtual key for a local OpenAI-format server: the caller that tries to borrow. */
let localKey: string;
const ids: Record<string, string> = {};

interface CreatedKey {
  id: string;
  key: string;
  allowRouting: boolean;
}

async function createKey(body: Record<string, unknown>): Promise<CreatedKey> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  const created = (await response.json()) as CreatedKey;
  ids[body.name as string] = created.id;
  return created;
}

/** An Anthropic key at the double, its secret named after it so the double shows whose credentials came. */
const anthropicKey = (name: string, extra: Record<string, unknown> = {}) =>
  createKey({ name, provider: 'anthropic', secret: `sk-ant-${name}-0123456789`, customHost: anthropic.baseUrl, ...extra });

async function addRoute(name: string, match: string, targets: Record<string, unknown>[]): Promise<void> {
  const response = await gateway.admin('/routes', { method: 'POST', body: JSON.stringify({ name, match, strategy: 'fallback', targets }) });
  expect(response.status, await response.clone().text()).toBe(201);
}

const setLimits = (id: string, limits: Record<string, number | null>) => gateway.admin(`/keys/${id}/limits`, { method: 'PUT', body: JSON.stringify(limits) });

interface LimitsView {
  limits: { rpm: number | null };
  requestsToday: number;
  tokensToday: number;
  spentTodayUsd: number;
}
const limitsOf = async (id: string) => (await (await gateway.admin(`/keys/${id}/limits`)).json()) as LimitsView;

/** A Messages call, as Claude Code sends it, with the given key. */
async function messages(key: string, model: string): Promise<{ status: number; retryAfter: string | null; body: { type: string; error?: { type: string; message: string } } }> {
  const response = await fetch(`${gateway.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as never };
}

interface LogDetail {
  status: number;
  keyId: string | null;
  targetKeyId: string | null;
  routeTarget: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  attemptLog: { status: number | null; target?: string; reason?: string }[];
}
async function lastLogRow(): Promise<LogDetail> {
  await gateway.flushLog();
  const list = (await (await gateway.admin('/logs?limit=1')).json()) as { items: { id: string }[] };
  return (await (await gateway.admin(`/logs/${list.items[0].id}`)).json()) as LogDetail;
}

/** Secrets the Anthropic double received, in order. */
const secretsReceived = () => anthropic.requests.map((request) => request.headers['x-api-key']);

beforeAll(async () => {
  [gateway, anthropic, local] = await Promise.all([startGateway(), startAnthropicFake(), startOpenAIFake()]);
  localKey = (await createKey({ name: 'ollama-box', provider: 'openai', secret: 'sk-local-0123456789abcdef', customHost: local.baseUrl })).key;
});
afterAll(async () => {
  await Promise.all([gateway.close(), anthropic.close(), local.close()]);
});

describe("a routed call counts against the target key's limits", () => {
  beforeAll(async () => {
    await anthropicKey('an', { allowRouting: true });
    await anthropicKey('an-spent', { allowRouting: true });
    await createKey({ name: 'local-backup', provider: 'openai', secret: 'sk-backup-0123456789abcdef', customHost: local.baseUrl, allowRouting: true });
    // The route: any Sonnet a client names goes to `an`.
    await addRoute('claude', 'claude-sonnet-*', [{ key: 'an' }]);
    await addRoute('spent', 'spent-*', [{ key: 'an-spent', model: 'claude-haiku-4-5' }]);
    await addRoute('spent-or-local', 'either-*', [{ key: 'an-spent', model: 'claude-haiku-4-5' }, { key: 'local-backup', model: 'llama3.1:8b' }]);
  });

  it("is charged to both keys, and its log row names the caller and the key whose credentials served", async () => {
    const before = { caller: await limitsOf(ids['ollama-box']), target: await limitsOf(ids.an) };
    const answer = await messages(localKey, 'claude-sonnet-4-5');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(secretsReceived().at(-1)).toBe('sk-ant-an-0123456789');

    const row = await lastLogRow();
    expect(row).toMatchObject({ status: 200, keyId: ids['ollama-box'], targetKeyId: ids.an, routeTarget: 'an → claude-sonnet-4-5' });
    const tokens = row.promptTokens! + row.completionTokens!;
    expect(tokens).toBeGreaterThan(0);
    expect(row.costUsd).toBeGreaterThan(0);
    for (const id of [ids['ollama-box'], ids.an]) {
      const after = await limitsOf(id);
      const was = id === ids.an ? before.target : before.caller;
      expect(after.requestsToday - was.requestsToday).toBe(1);
      expect(after.tokensToday - was.tokensToday).toBe(tokens);
      expect(after.spentTodayUsd - was.spentTodayUsd).toBeCloseTo(row.costUsd!, 12);
    }
  });

  it("the target's rpm refuses the next call, whoever calls (a gateway key too): 429 in the client's dialect, the provider hears nothing", async () => {
    expect((await setLimits(ids.an, { rpm: 1, tpm: null, dailyUsd: null, monthlyUsd: null })).status).toBe(200);
    expect((await messages(localKey, 'claude-sonnet-4-5')).status).toBe(200);
    const sent = anthropic.requests.length;

    for (const key of [localKey, gateway.apiKey]) {
      const refused = await messages(key, 'claude-sonnet-4-5');
      expect(refused.status).toBe(429);
      expect(refused.body.type).toBe('error');
      expect(refused.body.error!.type).toBe('rate_limit_error');
      expect(refused.body.error!.message).toContain("Route 'claude': Key 'an' is over its limit of 1 requests per minute");
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
    expect(anthropic.requests.length).toBe(sent);
    const row = await lastLogRow();
    expect(row.attemptLog).toEqual([{ status: null, error: null, durationMs: 0, target: 'an → claude-sonnet-4-5', reason: "over the key's requests per minute" }]);
    // The caller has no limits of its own: only the target's refused.
    expect((await limitsOf(ids['ollama-box'])).limits.rpm).toBeNull();
  });

  it("the target's spent budget refuses with budget_exceeded, naming the route and the key", async () => {
    expect((await messages(localKey, 'spent-1')).status).toBe(200);
    expect((await setLimits(ids['an-spent'], { rpm: null, tpm: null, dailyUsd: 0.000001, monthlyUsd: null })).status).toBe(200);
    const sent = anthropic.requests.length;
    const refused = await messages(localKey, 'spent-2');
    expect(refused.status).toBe(429);
    expect(refused.body.error!.message).toMatch(/^Route 'spent': Key 'an-spent' has used its daily budget/);
    expect(anthropic.requests.length).toBe(sent);
  });

  it('a target over its limit is skipped like a failing one: the next target serves, and the attempt log says why', async () => {
    const localCalls = local.requests.length;
    const sent = anthropic.requests.length;
    const answer = await messages(localKey, 'either-1');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(anthropic.requests.length).toBe(sent);
    expect(local.requests.length).toBe(localCalls + 1);
    expect(local.requests.at(-1)!.json.model).toBe('llama3.1:8b');
    const row = await lastLogRow();
    expect(row.targetKeyId).toBe(ids['local-backup']);
    expect(row.attemptLog.map((attempt) => [attempt.target, attempt.status, attempt.reason ?? null])).toEqual([
      ['an-spent → claude-haiku-4-5', null, "over the key's daily budget"],
      ['local-backup → llama3.1:8b', 200, null],
    ]);
  });
});

describe("the lending key's budget under a burst", () => {
  it("holds each call's worst case: 50 concurrent calls through a route spend no more than the target key's budget", async () => {
    const lender = await anthropicKey('an-burst', { allowRouting: true });
    await addRoute('burst', 'burst-*', [{ key: 'an-burst', model: 'claude-opus-4-1' }]);
    // One call first, to learn what a call really costs at the double.
    const first = await messages(localKey, 'burst-1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const perCall = (await lastLogRow()).costUsd!;
    expect(perCall).toBeGreaterThan(0);
    // Room for ten more calls; the caller itself has no limits, so only the lender's budget can hold.
    const budget = (await limitsOf(lender.id)).spentTodayUsd + perCall * 10;
    expect((await setLimits(lender.id, { dailyUsd: budget })).status).toBe(200);
    const served = anthropic.requests.length;
    // Each answer takes a while, so the whole burst is in flight before any call's cost is known.
    const slowAnswer: Behaviour = async (request, res) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await defaultAnswer(request, res);
    };
    // (Behaviours the refused calls leave queued only slow this file's later answers a little.)
    anthropic.enqueue(...Array.from({ length: 50 }, () => slowAnswer));

    const answers = await Promise.all(Array.from({ length: 50 }, () => messages(localKey, 'burst-2')));
    const passed = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429);
    expect(passed + refused.length).toBe(50);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expect(answer.body.error?.message).toContain("Route 'burst'");
    // Without the lender's reservation all 50 would be admitted at once (nothing spent yet) and served.
    expect(anthropic.requests.length - served).toBe(passed);
    expect(passed).toBeLessThanOrEqual(10);
    expect((await limitsOf(lender.id)).spentTodayUsd).toBeLessThanOrEqual(budget + 1e-12);
  });
});

describe('a key that does not allow routing', () => {
  beforeAll(async () => {
    const created = await anthropicKey('an-private');
    expect(created.allowRouting).toBe(false);
    await addRoute('private', 'private-*', [{ key: 'an-private', model: 'claude-haiku-4-5' }]);
  });

  it("refuses another virtual key's call with a 403 naming the route and the key; the provider receives nothing", async () => {
    const sent = anthropic.requests.length;
    const refused = await messages(localKey, 'private-1');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    expect(refused.body.error!.message).toContain("Route 'private': virtual key 'an-private' does not let other keys' calls use its credentials");
    expect(anthropic.requests.length).toBe(sent);

    // In the Chat Completions dialect too, with its code.
    const chat = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${localKey}` },
      body: JSON.stringify({ model: 'private-2', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(403);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('routing_not_allowed');
    expect(anthropic.requests.length).toBe(sent);
    const row = await lastLogRow();
    expect(row).toMatchObject({ status: 403, keyId: ids['ollama-box'], targetKeyId: null });
    expect(row.attemptLog).toEqual([{ status: null, error: null, durationMs: 0, target: 'an-private → claude-haiku-4-5', reason: 'key does not allow routing' }]);
  });

  it('still serves a gateway key, and the key itself, through the same route', async () => {
    expect((await messages(gateway.apiKey, 'private-3')).status).toBe(200);
    expect(secretsReceived().at(-1)).toBe('sk-ant-an-private-0123456789');
    const row = await lastLogRow();
    expect(row).toMatchObject({ keyId: null, targetKeyId: ids['an-private'] });

    const own = await gateway.admin(`/virtual-keys/${ids['an-private']}`, { method: 'PATCH', body: JSON.stringify({ regenerateKey: true }) });
    const ownKey = ((await own.json()) as { key: string }).key;
    expect((await messages(ownKey, 'private-4')).status).toBe(200);
  });

  it('the admin API turns it on and off (PATCH, GET), and the gateway follows', async () => {
    const allowed = await gateway.admin(`/virtual-keys/${ids['an-private']}`, { method: 'PATCH', body: JSON.stringify({ allowRouting: true }) });
    expect(((await allowed.json()) as CreatedKey).allowRouting).toBe(true);
    expect(((await (await gateway.admin(`/virtual-keys/${ids['an-private']}`)).json()) as CreatedKey).allowRouting).toBe(true);
    expect((await messages(localKey, 'private-5')).status).toBe(200);

    await gateway.admin(`/virtual-keys/${ids['an-private']}`, { method: 'PATCH', body: JSON.stringify({ allowRouting: false }) });
    expect((await messages(localKey, 'private-6')).status).toBe(403);
    const badValue = await gateway.admin(`/virtual-keys/${ids['an-private']}`, { method: 'PATCH', body: JSON.stringify({ allowRouting: 'yes' }) });
    expect(badValue.status).toBe(400);
  });

  it('the keys CLI sets it on add and changes it, and a running server applies it within a second or so', async () => {
    const added = await cli(['keys', 'add', '--name', 'an-cli', '--provider', 'anthropic', '--custom-host', anthropic.baseUrl, '--allow-routing'], 'sk-ant-an-cli-0123456789\n');
    expect(added.code, added.stderr).toBe(0);
    const listed = JSON.parse((await cli(['keys', 'list', '--json'])).stdout) as { items: { name: string; id: string; allowRouting: boolean }[] };
    expect(listed.items.find((key) => key.name === 'an-cli')?.allowRouting).toBe(true);

    const denied = await cli(['keys', 'routing', 'an-private', '--allow']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stderr).toContain("routes may serve other keys' calls with its credentials");
    expect(await statusWithin(1_500, 200)).toBe(200);

    expect((await cli(['keys', 'routing', 'an-private', '--deny'])).code).toBe(0);
    expect(JSON.parse((await cli(['keys', 'routing', 'an-private', '--json'])).stdout)).toEqual({ id: ids['an-private'], name: 'an-private', allowRouting: false });
    expect(await statusWithin(1_500, 403)).toBe(403);

    const usage = await cli(['keys', 'routing', 'an-private', '--allow', '--deny']);
    expect(usage.code).toBe(2);
    expect((await cli(['keys', 'routing', 'no-such-key'])).code).toBe(1);
  });
});

describe('across a restart', () => {
  it("a target key's minute window is refilled from the calls its credentials served", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-borrow-'));
    const own = async () => {
      const started = await startGateway({ dataDir });
      const call = (key: string) =>
        fetch(`${started.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
        }).then(async (response) => (await response.text(), response.status));
      return { started, call };
    };
    try {
      const first = await own();
      const create = async (body: Record<string, unknown>) => (await (await first.started.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) })).json()) as CreatedKey;
      const caller = await create({ name: 'box', provider: 'openai', secret: 'sk-box-0123456789abcdef', customHost: local.baseUrl });
      const target = await create({ name: 'an', provider: 'anthropic', secret: 'sk-ant-restart-0123456789', customHost: anthropic.baseUrl, allowRouting: true });
      await first.started.admin(`/keys/${target.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 1, tpm: null, dailyUsd: null, monthlyUsd: null }) });
      await first.started.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'claude', match: 'claude-*', strategy: 'fallback', targets: [{ key: 'an' }] }) });
      expect(await first.call(caller.key)).toBe(200);
      await first.started.close();

      const second = await own();
      try {
        expect(await second.call(caller.key)).toBe(429);
      } finally {
        await second.started.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** The status of local's call to the private route once it is `wanted`, polling (CI may be slow: up to 6× the bound). */
async function statusWithin(boundMs: number, wanted: number): Promise<number> {
  const until = Date.now() + boundMs * 6;
  let status = 0;
  while (Date.now() < until) {
    status = (await messages(localKey, 'private-cli')).status;
    if (status === wanted) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return status;
}

/** `gatehouse keys ...` in this process, on the running gateway's data dir (as a second terminal would). */
function cli(args: string[], stdin = ''): Promise<CliResult> {
  return runInProcess(runKeysCommand, [...args, '--data-dir', gateway.dataDir], { stdin, env: { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY } });
}
