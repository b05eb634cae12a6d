// The zustand stores against scripted admin API and gateway answers: logs, Playground runs, key forms.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdminClient } from '../../../src-renderer/api/admin-client';
import type { LogEntry } from '../../../src-renderer/api/types';
import { buildNewVirtualKey, buildRotation, credentialFields } from '../../../src-renderer/keys/provider-form';
import { matchesFilters, resetLogsStoreForTests, summarize, useLogsStore, EMPTY_FILTERS } from '../../../src-renderer/stores/logs-store';
import { usePlaygroundStore } from '../../../src-renderer/stores/playground-store';
import { useCompareStore } from '../../../src-renderer/stores/compare-store';
import { useSavedPromptsStore } from '../../../src-renderer/stores/saved-prompts-store';
import { formatCost } from '../../../src-renderer/pages/playground/ComparePanel';
import { useSessionStore } from '../../../src-renderer/stores/session-store';

function entry(id: string, patch: Partial<LogEntry> = {}): LogEntry {
  return {
    id,
    createdAt: '2026-01-01T00:00:00.000Z',
    traceId: `trace-${id}`,
    metadata: { team: 'search' },
    provider: 'openai',
    model: 'gpt-4o-mini',
    path: '/v1/completions',
    status: 200,
    latencyMs: 120,
    ttfbMs: 40,
    promptTokens: 5,
    completionTokens: 3,
    stream: false,
    error: null,
    attempts: 1,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
    costUsd: null,
    client: null,
    dialect: 'openai-completions',
    providerFormat: 'openai-completions',
    dropped: [],
    route: null,
    routeTarget: null,
    keyId: null,
    ...patch,
  };
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('log filters applied to live entries', () => {
  it('match provider and model exactly (as the server does), text by word prefixes (as the server does), and status by code or "error"', () => {
    const failed = entry('1', { status: 429, error: 'slow down', provider: 'groq', model: 'llama-3.1-8b' });
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, provider: 'groq' })).toBe(true);
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, provider: 'openai' })).toBe(false);
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, model: 'llama-3.1-8b' })).toBe(true);
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, model: 'llama' })).toBe(false);
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, status: 'error' })).toBe(true);
    expect(matchesFilters(entry('2'), { ...EMPTY_FILTERS, status: 'error' })).toBe(false);
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, status: '429' })).toBe(true);
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, q: 'slow' })).toBe(true);
    expect(matchesFilters(entry('3'), { ...EMPTY_FILTERS, q: 'search' })).toBe(true);
    expect(matchesFilters(entry('3'), { ...EMPTY_FILTERS, q: 'nothing-like-this' })).toBe(false);
    // Inside a word is not a match on the server (its index holds words), so not here either.
    expect(matchesFilters(failed, { ...EMPTY_FILTERS, q: 'own' })).toBe(false);
  });
});

describe('the logs store', () => {
  let requests: string[];

  beforeEach(() => {
    vi.useFakeTimers();
    resetLogsStoreForTests();
    requests = [];
    const fetchImpl: typeof fetch = async (input) => {
      const url = String(input);
      requests.push(url);
      if (url.startsWith('/admin/api/logs?')) {
        const before = new URLSearchParams(url.split('?')[1]).get('before');
        return before ? jsonResponse({ items: [entry('1')], next: null }) : jsonResponse({ items: [entry('3'), entry('2')], next: '2' });
      }
      if (url === '/admin/api/logs/2') return jsonResponse({ ...entry('2'), keyId: null, requestHeaders: {}, requestBody: null, responseBody: null });
      return jsonResponse({ error: { message: 'No log entry 9', type: 'not_found_error' } }, 404);
    };
    useSessionStore.setState({ client: new AdminClient('admin-token', fetchImpl), connection: 'connected' });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads newest first, pages on with the cursor, and sends the filters as query parameters', async () => {
    await useLogsStore.getState().load();
    expect(useLogsStore.getState().rows.map((row) => row.id)).toEqual(['3', '2']);
    await useLogsStore.getState().loadMore();
    expect(useLogsStore.getState().rows.map((row) => row.id)).toEqual(['3', '2', '1']);
    expect(requests[1]).toContain('before=2');
    useLogsStore.getState().setFilters({ provider: 'groq', status: 'error' });
    await vi.waitFor(() => expect(requests.at(-1)).toContain('provider=groq'));
    expect(requests.at(-1)).toContain('status=error');
  });

  it('puts live entries on top in one batch, newest first, without duplicates or filtered-out rows', async () => {
    await useLogsStore.getState().load();
    const { receiveLive } = useLogsStore.getState();
    receiveLive(entry('4'));
    receiveLive(entry('5'));
    receiveLive(entry('3'));
    receiveLive(entry('6', { provider: 'anthropic' }));
    expect(useLogsStore.getState().rows).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(useLogsStore.getState().rows.map((row) => row.id)).toEqual(['6', '5', '4', '3', '2']);

    useLogsStore.setState({ filters: { ...EMPTY_FILTERS, provider: 'openai' } });
    receiveLive(entry('7', { provider: 'anthropic' }));
    await vi.advanceTimersByTimeAsync(200);
    expect(useLogsStore.getState().rows[0].id).toBe('6');
  });

  it('opens an entry’s detail, and says so in place when it is gone', async () => {
    await useLogsStore.getState().select('2');
    expect(useLogsStore.getState().detail?.id).toBe('2');
    await useLogsStore.getState().select('9');
    expect(useLogsStore.getState().detailStatus).toBe('error');
    expect(useLogsStore.getState().detailError).toMatch(/no longer in the log/);
  });
});

function sseResponse(events: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(`data: ${event}\n\n`));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-gateway-trace-id': 'trace-1' } });
}

describe('the Playground store', () => {
  const initial = usePlaygroundStore.getState();
  // These runs send a pasted key; a key picked by name has its own cases below.
  beforeEach(() => usePlaygroundStore.setState({ ...initial, authKind: 'virtual-key' }, true));
  afterEach(() => vi.unstubAllGlobals());

  it('does not send anything until a key and a model are given', async () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal('fetch', fetchSpy);
    await usePlaygroundStore.getState().run();
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(usePlaygroundStore.getState().error?.param).toBe('virtualKey');
  });

  it('streams tokens into the output and records usage, finish reason and trace id', async () => {
    let sentHeaders: Record<string, string> = {};
    let sentBody = '';
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      sentHeaders = init.headers as Record<string, string>;
      sentBody = String(init.body);
      return sseResponse([
        '{"choices":[{"index":0,"text":"Hel","finish_reason":null}]}',
        '{"choices":[{"index":0,"text":"lo","finish_reason":"stop"}]}',
        '{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}',
        '[DONE]',
      ]);
    });
    usePlaygroundStore.getState().update({ mode: 'completion', virtualKey: 'gh-vk-test', model: 'm', prompt: 'Say hello' });
    await usePlaygroundStore.getState().run();
    const state = usePlaygroundStore.getState();
    expect(sentHeaders['x-gateway-api-key']).toBe('gh-vk-test');
    expect(JSON.parse(sentBody)).toMatchObject({ model: 'm', prompt: 'Say hello', stream: true, stream_options: { include_usage: true } });
    expect(state.phase).toBe('done');
    expect(state.outputs).toEqual(['Hello']);
    expect(state.stats?.usage).toEqual({ promptTokens: 4, completionTokens: 2, totalTokens: 6 });
    expect(state.stats?.finishReasons).toEqual(['stop']);
    expect(state.stats?.traceId).toBe('trace-1');
    expect(state.raw?.request.headers['x-gateway-api-key']).not.toContain('gh-vk-test');
    expect(state.raw?.response.body).toContain('data: [DONE]');
  });

  it('shows a gateway error with the field it names', async () => {
    vi.stubGlobal('fetch', async () => jsonResponse({ error: { message: "'temperature' must be at most 2", type: 'invalid_request_error', param: 'temperature', code: null } }, 400));
    usePlaygroundStore.getState().update({ virtualKey: 'gh-vk-test', model: 'm', prompt: 'x' });
    await usePlaygroundStore.getState().run();
    expect(usePlaygroundStore.getState().error).toEqual({ message: "'temperature' must be at most 2", param: 'temperature', status: 400 });
  });

  it('stops a run when asked, keeping what arrived', async () => {
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode('data: {"choices":[{"index":0,"text":"partial"}]}\n\n'));
          init.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    usePlaygroundStore.getState().update({ virtualKey: 'gh-vk-test', model: 'm', prompt: 'x' });
    const running = usePlaygroundStore.getState().run();
    await vi.waitFor(() => expect(usePlaygroundStore.getState().outputs).toEqual(['partial']));
    usePlaygroundStore.getState().stop();
    await running;
    expect(usePlaygroundStore.getState().phase).toBe('stopped');
    expect(usePlaygroundStore.getState().outputs).toEqual(['partial']);
  });
});

describe('the Playground with a key picked by name', () => {
  const initial = usePlaygroundStore.getState();
  beforeEach(() => {
    usePlaygroundStore.setState(initial, true);
    useSessionStore.setState({ client: new AdminClient('admin-token-1') });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    useSessionStore.setState({ client: null });
  });

  it('starts with a key picked by name, and asks for one before sending', async () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal('fetch', fetchSpy);
    expect(usePlaygroundStore.getState().authKind).toBe('key-by-name');
    usePlaygroundStore.getState().update({ model: 'm', prompt: 'x' });
    await usePlaygroundStore.getState().run();
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(usePlaygroundStore.getState().error?.param).toBe('keyId');
  });

  it('runs through the admin API as that key: its id in the path, the admin token, no key of any kind', async () => {
    let sentUrl = '';
    let sentHeaders: Record<string, string> = {};
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      sentUrl = url;
      sentHeaders = init.headers as Record<string, string>;
      return sseResponse(['{"choices":[{"index":0,"text":"Hi","finish_reason":"stop"}]}', '[DONE]']);
    });
    usePlaygroundStore.getState().update({ mode: 'chat', keyId: 'vk_0123abcd', model: 'm', prompt: 'Say hi' });
    await usePlaygroundStore.getState().run();
    expect(sentUrl).toBe('/admin/api/playground/vk_0123abcd/chat/completions');
    expect(sentHeaders.authorization).toBe('Bearer admin-token-1');
    expect(sentHeaders['x-gateway-api-key']).toBeUndefined();
    expect(sentHeaders['x-api-key']).toBeUndefined();
    const state = usePlaygroundStore.getState();
    expect(state.outputs).toEqual(['Hi']);
    expect(state.raw?.request.url).toContain('/admin/api/playground/vk_0123abcd/chat/completions');
    expect(state.raw?.request.headers.authorization).not.toContain('admin-token-1');
  });

  it('offers the key’s models, and says why when there are none', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(url);
      // The key's models, as every set-up reads them (GET /virtual-keys/:id/models, key-models-store).
      return url.includes('vk_good')
        ? jsonResponse({ models: [{ id: 'llama3.2', source: 'listed' }, { id: 'qwen2.5', source: 'listed' }], listing: null })
        : jsonResponse({ models: [], listing: { ok: false, host: 'http://127.0.0.1:9', models: 0, modelIds: [], reason: 'unreachable', message: 'Nothing answers at http://127.0.0.1:9' } });
    });
    usePlaygroundStore.getState().update({ keyId: 'vk_good' });
    await usePlaygroundStore.getState().loadModelOptions();
    expect(usePlaygroundStore.getState()).toMatchObject({ modelOptions: ['llama3.2', 'qwen2.5'], modelOptionsStatus: 'ready' });
    usePlaygroundStore.getState().update({ keyId: 'vk_bare' });
    await usePlaygroundStore.getState().loadModelOptions();
    expect(usePlaygroundStore.getState()).toMatchObject({ modelOptions: [], modelOptionsStatus: 'error', modelOptionsError: 'Nothing answers at http://127.0.0.1:9' });
    expect(asked).toEqual(['/admin/api/virtual-keys/vk_good/models', '/admin/api/virtual-keys/vk_bare/models']);
  });

  it('re-opens a draft with the key it ran with, picked by name', () => {
    usePlaygroundStore.setState({ authKind: 'virtual-key' });
    usePlaygroundStore.getState().loadDraft({ mode: 'chat', model: 'm', prompt: 'again', promptIsJson: false, messages: [], parameters: initial.parameters }, 'vk_again');
    expect(usePlaygroundStore.getState()).toMatchObject({ authKind: 'key-by-name', keyId: 'vk_again', prompt: 'again' });
    usePlaygroundStore.getState().loadDraft({ mode: 'completion', model: 'm', prompt: 'no key', promptIsJson: false, messages: [], parameters: initial.parameters }, null);
    expect(usePlaygroundStore.getState()).toMatchObject({ authKind: 'key-by-name', keyId: 'vk_again', prompt: 'no key' });
  });
});

describe('the compare view', () => {
  const initialPlayground = usePlaygroundStore.getState();
  const initialCompare = useCompareStore.getState();
  beforeEach(() => {
    usePlaygroundStore.setState({ ...initialPlayground, mode: 'completion', prompt: 'Same prompt', parameters: { ...initialPlayground.parameters, stream: false } }, true);
    useCompareStore.setState(initialCompare, true);
    useSessionStore.setState({ client: new AdminClient('admin-token-2') });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    useSessionStore.setState({ client: null });
  });

  it('sends the same prompt to both keys with their own models, and shows cost only when the log entry has one', async () => {
    const runs: { url: string; body: Record<string, unknown>; trace: string }[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
      if (url.startsWith('/admin/api/logs?')) {
        const q = new URLSearchParams(url.split('?')[1]).get('q') ?? '';
        const priced = q.endsWith('-a');
        return jsonResponse({ items: [{ ...entry('9'), traceId: q, promptTokens: 7, completionTokens: 2, ...(priced ? { costUsd: 0.00042 } : {}) }], next: null });
      }
      if (url.endsWith('/models')) return jsonResponse({ models: [], error: null });
      const headers = init.headers as Record<string, string>;
      runs.push({ url, body: JSON.parse(String(init.body)) as Record<string, unknown>, trace: headers['x-gateway-trace-id'] });
      return jsonResponse({ choices: [{ index: 0, text: `from ${url.split('/')[4]}`, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } });
    });
    const compare = useCompareStore.getState();
    compare.updateSide(0, { keyId: 'vk_left', model: 'small-model' });
    compare.updateSide(1, { keyId: 'vk_right', model: 'large-model' });
    await useCompareStore.getState().run();

    expect(runs.map((run) => [run.url, run.body.model, run.body.prompt])).toEqual([
      ['/admin/api/playground/vk_left/completions', 'small-model', 'Same prompt'],
      ['/admin/api/playground/vk_right/completions', 'large-model', 'Same prompt'],
    ]);
    expect(runs[0].trace).not.toBe(runs[1].trace);
    const [left, right] = useCompareStore.getState().sides;
    expect(left).toMatchObject({ phase: 'done', output: 'from vk_left', usage: { promptTokens: 7, completionTokens: 2 }, costUsd: 0.00042 });
    expect(right).toMatchObject({ phase: 'done', output: 'from vk_right', costUsd: null });
    expect(left.latencyMs).not.toBeNull();
    expect(formatCost(left.costUsd)).toBe('$0.00042');
    expect(formatCost(1.5)).toBe('$1.5000');
  });

  it('compares in Responses mode too: each side sends a Responses body and reads its answer', async () => {
    usePlaygroundStore.setState({ mode: 'responses' });
    const runs: { url: string; body: Record<string, unknown> }[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
      if (url.startsWith('/admin/api/logs?')) return jsonResponse({ items: [], next: null });
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      runs.push({ url, body });
      const text = `${String(body.model)} says hi`;
      return jsonResponse({ object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }], usage: { input_tokens: 4, output_tokens: 3, total_tokens: 7 } });
    });
    const compare = useCompareStore.getState();
    compare.updateSide(0, { keyId: 'vk_left', model: 'gpt-5' });
    compare.updateSide(1, { keyId: 'vk_right', model: 'claude-sonnet-4-5' });
    await useCompareStore.getState().run();
    expect(runs.map((run) => run.url)).toEqual(['/admin/api/playground/vk_left/responses', '/admin/api/playground/vk_right/responses']);
    expect(runs[0].body).toMatchObject({ model: 'gpt-5', input: [{ role: 'user', content: 'Same prompt' }], store: false });
    const [left, right] = useCompareStore.getState().sides;
    expect(left).toMatchObject({ phase: 'done', output: 'gpt-5 says hi', usage: { promptTokens: 4, completionTokens: 3 } });
    expect(right).toMatchObject({ phase: 'done', output: 'claude-sonnet-4-5 says hi' });
  }, 10_000);

  it('names the side that is missing its key, without sending anything for it', async () => {
    const sent: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      sent.push(url);
      return url.startsWith('/admin/api/logs?') ? jsonResponse({ items: [], next: null }) : jsonResponse({ choices: [{ index: 0, text: 'ok', finish_reason: 'stop' }] });
    });
    useCompareStore.getState().updateSide(1, { model: 'm' });
    useCompareStore.setState({ sides: [{ ...useCompareStore.getState().sides[0], keyId: 'vk_only', model: 'm' }, useCompareStore.getState().sides[1]] });
    await useCompareStore.getState().run();
    const [left, right] = useCompareStore.getState().sides;
    expect(left.phase).toBe('done');
    expect(right).toMatchObject({ phase: 'error', error: { param: 'keyId' } });
    expect(sent.filter((url) => url.includes('/playground/'))).toEqual(['/admin/api/playground/vk_only/completions']);
  }, 10_000);
});

describe('saved prompts', () => {
  const initial = usePlaygroundStore.getState();
  beforeEach(() => {
    usePlaygroundStore.setState({ ...initial, mode: 'chat', keyId: 'vk_single', model: 'single-model', prompt: 'Summarise this' }, true);
    useSavedPromptsStore.setState({ items: [], status: 'idle', error: null });
    useSessionStore.setState({ client: new AdminClient('admin-token-3') });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    useSessionStore.setState({ client: null });
  });

  function stubSave(sent: Record<string, unknown>[]) {
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      const input = JSON.parse(String(init.body)) as Record<string, unknown>;
      sent.push(input);
      return jsonResponse({ id: 'sp_1', name: input.name, endpoint: input.endpoint, body: JSON.stringify(input.body), keyId: input.keyId, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }, 201);
    });
  }

  it('saves the request as it would be sent, with the key picked by name (its id), and re-opens it', async () => {
    const sent: Record<string, unknown>[] = [];
    stubSave(sent);
    const saved = await useSavedPromptsStore.getState().saveCurrent('Summary');
    expect(sent[0]).toMatchObject({ name: 'Summary', endpoint: '/v1/chat/completions', keyId: 'vk_single', body: { model: 'single-model' } });
    expect(JSON.stringify(sent[0].body)).toContain('Summarise this');
    usePlaygroundStore.setState({ keyId: 'vk_other', prompt: 'changed', model: 'other' });
    expect(useSavedPromptsStore.getState().open(saved)).toBe(true);
    expect(usePlaygroundStore.getState()).toMatchObject({ keyId: 'vk_single', prompt: 'Summarise this', model: 'single-model', mode: 'chat' });
  });

  it('never keeps a pasted key, and saves the compare view’s first side when asked', async () => {
    const sent: Record<string, unknown>[] = [];
    stubSave(sent);
    usePlaygroundStore.setState({ authKind: 'virtual-key', virtualKey: 'gh-vk-pasted-secret' });
    await useSavedPromptsStore.getState().saveCurrent('Pasted');
    expect(sent[0].keyId).toBeNull();
    expect(JSON.stringify(sent[0])).not.toContain('gh-vk-pasted-secret');
    await useSavedPromptsStore.getState().saveCurrent('Side A', { keyId: 'vk_side_a', model: 'side-a-model' });
    expect(sent[1]).toMatchObject({ keyId: 'vk_side_a', body: { model: 'side-a-model' } });
  });
});

describe('key forms built from the provider list', () => {
  const azure = {
    slug: 'azure-openai',
    name: 'Azure OpenAI',
    defaultBaseUrl: 'https://{resource}.openai.azure.com/openai',
    fields: [
      { name: 'token', label: 'API key', secret: true, required: true },
      { name: 'azure.resourceName', label: 'Resource name', secret: false, required: false },
      { name: 'azure.deploymentId', label: 'Deployment', secret: false, required: true },
    ],
  };

  it('puts the API key in secret and the other fields in cloud', () => {
    expect(buildNewVirtualKey(' Prod ', azure, 'azure-openai', { token: 'k', 'azure.deploymentId': 'dep', 'azure.resourceName': '' }, ' https://proxy/openai ')).toEqual({
      name: 'Prod',
      provider: 'azure-openai',
      secret: 'k',
      cloud: { 'azure.deploymentId': 'dep' },
      customHost: 'https://proxy/openai',
    });
    expect(buildRotation(azure, { token: 'new' })).toEqual({ secret: 'new' });
  });

  it('always offers an "API key" field, even for a provider that lists none', () => {
    expect(credentialFields({ slug: 'ollama', name: 'Ollama', defaultBaseUrl: 'http://localhost:11434/v1', fields: [] }).map((field) => field.label)).toEqual(['API key']);
    expect(credentialFields(azure).map((field) => field.label)).toEqual(['API key', 'Resource name', 'Deployment']);
  });

  it('keeps cloud secrets such as Bedrock’s in cloud, by field name', () => {
    const bedrock = {
      slug: 'bedrock',
      name: 'AWS Bedrock',
      defaultBaseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
      fields: [
        { name: 'bedrock.secretAccessKey', label: 'Secret access key', secret: true, required: true },
        { name: 'bedrock.accessKeyId', label: 'Access key ID', secret: false, required: true },
        { name: 'bedrock.region', label: 'Region', secret: false, required: true },
      ],
    };
    expect(credentialFields(bedrock).map((field) => field.label)).toEqual(['Secret access key', 'Access key ID', 'Region']);
    expect(buildNewVirtualKey('b', bedrock, 'bedrock', { 'bedrock.secretAccessKey': 's', 'bedrock.accessKeyId': 'AKIA', 'bedrock.region': 'us-east-1' }, '')).toEqual({
      name: 'b',
      provider: 'bedrock',
      cloud: { 'bedrock.secretAccessKey': 's', 'bedrock.accessKeyId': 'AKIA', 'bedrock.region': 'us-east-1' },
    });
  });
});

describe('the log summary', () => {
  it('gives the median latency and the share of failures of the most recent rows', () => {
    const recent = [entry('a', { latencyMs: 300 }), entry('b', { latencyMs: 100, status: 502 }), entry('c', { latencyMs: 200 }), entry('d', { latencyMs: 9000, status: 500 })];
    expect(summarize(recent, 3)).toEqual({ sampled: 3, errorRate: 1 / 3, medianLatencyMs: 200 });
    expect(summarize([])).toEqual({ sampled: 0, errorRate: 0, medianLatencyMs: null });
  });
});

describe('the Playground draft kept across reloads', () => {
  it('keeps model, prompt and parameters but never a key or token', () => {
    const state = { ...usePlaygroundStore.getState(), virtualKey: 'gh-vk-secret', providerToken: 'sk-secret', gatewayApiKey: 'gh-gw-secret', model: 'm', prompt: 'p' };
    const persisted = usePlaygroundStore.persist.getOptions().partialize?.(state);
    const text = JSON.stringify(persisted);
    expect(persisted).toMatchObject({ model: 'm', prompt: 'p' });
    expect(text).not.toContain('secret');
  });
});

describe('the request the Run button would send', () => {
  it('sends a JSON prompt as its array, and blocks an invalid one at the prompt field', async () => {
    const { draftRequest } = await import('../../../src-renderer/stores/playground-store');
    const base = { mode: 'completion' as const, model: 'm', messages: [], parameters: { ...usePlaygroundStore.getState().parameters, stream: false } };
    expect(draftRequest({ ...base, prompt: '["a","b"]', promptIsJson: true }).body.prompt).toEqual(['a', 'b']);
    expect(draftRequest({ ...base, prompt: '[1, "x"]', promptIsJson: true }).errors.prompt).toMatch(/JSON prompt/);
    expect(draftRequest({ ...base, prompt: '["a"]', promptIsJson: false }).body.prompt).toBe('["a"]');
  });
});
