// The Routes page's logic against scripted admin API answers: the routes store (load, save, reorder
// with undo on refusal, import), the route form (to and from RouteInput, server params onto fields),
// routes files (JSON and YAML, errors by line), key model maps, and the log detail's attempt timeline.
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../../src-renderer/api/admin-client';
import { buildGatewayHeaders } from '../../../src-renderer/api/gateway-client';
import { curlSnippet, snippetAuthOf } from '../../../src-renderer/playground/code-snippets';
import { ApiError } from '../../../src-renderer/api/api-error';
import type { Route, RouteInput } from '../../../src-renderer/api/types';
import { buildKeyModels, describeKeyModels, rowsFromModelMap } from '../../../src-renderer/keys/model-map';
import { RouteTrail } from '../../../src-renderer/pages/logs/LogDetailPanel';
import { describeImportError } from '../../../src-renderer/pages/routes/RouteFileDialogs';
import { draftForModel } from '../../../src-renderer/playground/draft-from-log';
import { INITIAL_PARAMETERS } from '../../../src-renderer/playground/parameters';
import { describeConditions, draftFromRoute, fieldOfParam, isShownField, orderAfterMove, routeInputFromDraft, sampleModelFor, targetError } from '../../../src-renderer/routes/route-form';
import { parseRoutesFile, pathOfParam, RoutesFileError } from '../../../src-renderer/routes/routes-file';
import { useRoutesStore } from '../../../src-renderer/stores/routes-store';
import { useSessionStore } from '../../../src-renderer/stores/session-store';

function route(id: string, position: number, patch: Partial<Route> = {}): Route {
  return {
    id,
    position,
    name: `route-${id}`,
    match: `model-${id}`,
    strategy: 'fallback',
    targets: [{ key: 'primary' }],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    lastServed: null,
    ...patch,
  };
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const errorBody = (message: string, param: string | null) => ({ error: { message, type: 'invalid_request_error', param, code: null } });

describe('the routes store', () => {
  let calls: Array<{ method: string; url: string; body: unknown }>;
  let answer: (method: string, url: string, body: unknown) => Response;

  beforeEach(() => {
    calls = [];
    answer = () => jsonResponse({ items: [] });
    const fetchImpl: typeof fetch = async (input, init) => {
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ method: init?.method ?? 'GET', url: String(input), body });
      return answer(init?.method ?? 'GET', String(input), body);
    };
    useSessionStore.setState({ client: new AdminClient('admin-token', fetchImpl), connection: 'connected' });
    useRoutesStore.setState({ routes: [], status: 'idle', loadError: null, moveError: null, announcement: '' });
  });

  it('lists routes in match order whatever order the server sends them in', async () => {
    answer = () => jsonResponse({ items: [route('b', 1), route('a', 0)] });
    await useRoutesStore.getState().load();
    expect(useRoutesStore.getState().routes.map((item) => item.id)).toEqual(['a', 'b']);
    expect(useRoutesStore.getState().status).toBe('ready');
  });

  it('says why the list could not load', async () => {
    answer = () => jsonResponse(errorBody('Invalid admin token', null), 401);
    await useRoutesStore.getState().load();
    expect(useRoutesStore.getState().status).toBe('error');
    expect(useRoutesStore.getState().loadError).toBe('Invalid admin token');
  });

  it('appends a created route and replaces an edited one in place', async () => {
    useRoutesStore.setState({ routes: [route('a', 0), route('b', 1)], status: 'ready' });
    const input: RouteInput = { name: 'fast', match: 'fast', strategy: 'balance', targets: [{ key: 'groq', weight: 2 }] };
    answer = (method) => jsonResponse(method === 'POST' ? route('c', 2, input) : route('a', 0, { name: 'renamed' }), method === 'POST' ? 201 : 200);
    await useRoutesStore.getState().save(null, input);
    expect(calls.at(-1)).toMatchObject({ method: 'POST', url: '/admin/api/routes', body: input });
    await useRoutesStore.getState().save('a', { ...input, name: 'renamed' });
    expect(calls.at(-1)).toMatchObject({ method: 'PATCH', url: '/admin/api/routes/a' });
    expect(useRoutesStore.getState().routes.map((item) => item.name)).toEqual(['renamed', 'route-b', 'fast']);
  });

  it('hands a refused save back with the param the server named, changing nothing', async () => {
    useRoutesStore.setState({ routes: [route('a', 0)], status: 'ready' });
    answer = () => jsonResponse(errorBody("Virtual key 'old' is revoked", 'targets[0].key'), 400);
    const refused = await useRoutesStore.getState().save(null, { name: 'x', match: 'x', strategy: 'fallback', targets: [{ key: 'old' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).param).toBe('targets[0].key');
    expect(useRoutesStore.getState().routes).toHaveLength(1);
  });

  it('moves a route at once, sends every id in the new order, and announces where it went', async () => {
    useRoutesStore.setState({ routes: [route('a', 0), route('b', 1), route('c', 2)], status: 'ready' });
    answer = (_method, _url, body) => jsonResponse({ items: (body as { ids: string[] }).ids.map((id, index) => route(id, index)) });
    const moving = useRoutesStore.getState().move('c', -1);
    expect(useRoutesStore.getState().routes.map((item) => item.id)).toEqual(['a', 'c', 'b']);
    await moving;
    expect(calls.at(-1)).toMatchObject({ method: 'PUT', url: '/admin/api/routes/order', body: { ids: ['a', 'c', 'b'] } });
    expect(useRoutesStore.getState().announcement).toBe('Moved route-c to position 2 of 3');
    await useRoutesStore.getState().moveTo('b', 0);
    expect(useRoutesStore.getState().routes.map((item) => item.id)).toEqual(['b', 'a', 'c']);
  });

  it('does not call the server for a move past either end', async () => {
    useRoutesStore.setState({ routes: [route('a', 0), route('b', 1)], status: 'ready' });
    await useRoutesStore.getState().move('a', -1);
    await useRoutesStore.getState().move('b', 1);
    expect(calls).toHaveLength(0);
  });

  it('puts the old order back and says so when the server refuses a move', async () => {
    useRoutesStore.setState({ routes: [route('a', 0), route('b', 1)], status: 'ready' });
    answer = () => jsonResponse(errorBody("Route 'b' can never match: 'a' comes first", 'ids[0]'), 400);
    await useRoutesStore.getState().move('b', -1);
    expect(useRoutesStore.getState().routes.map((item) => item.id)).toEqual(['a', 'b']);
    expect(useRoutesStore.getState().moveError).toContain("can never match");
  });

  it('replaces the list with what an import stored', async () => {
    useRoutesStore.setState({ routes: [route('a', 0)], status: 'ready' });
    const file = { routes: [{ name: 'background', match: 'claude-haiku-*', strategy: 'fallback' as const, targets: [{ key: 'local', model: 'qwen3-coder:30b' }] }] };
    answer = () => jsonResponse({ items: [route('n', 0, file.routes[0])] });
    await useRoutesStore.getState().importFile(file);
    expect(calls.at(-1)).toMatchObject({ method: 'PUT', url: '/admin/api/routes', body: file });
    expect(useRoutesStore.getState().routes.map((item) => item.name)).toEqual(['background']);
  });

  it('asks the server to explain a request with only the traits given', async () => {
    answer = () => jsonResponse({ route: 'long', strategy: 'fallback', targets: [{ key: 'gemini', model: 'gemini-2.5-pro', eligible: true, reason: null }] });
    const explanation = await useRoutesStore.getState().explain({ model: 'claude-sonnet-4', promptTokens: 70000 });
    expect(calls.at(-1)).toMatchObject({ method: 'POST', url: '/admin/api/routes/explain', body: { model: 'claude-sonnet-4', promptTokens: 70000 } });
    expect(explanation.targets[0].key).toBe('gemini');
  });
});

describe('the route form', () => {
  const full: RouteInput = {
    name: 'long',
    match: 'claude-sonnet-*',
    strategy: 'fallback',
    targets: [
      { key: 'gemini', model: 'gemini-2.5-pro', timeout_ms: 30000, when: { min_prompt_tokens: 60000, thinking: true } },
      { key: 'anthropic-main' },
    ],
  };

  it('round-trips a route through the form unchanged', () => {
    const { input, errors } = routeInputFromDraft(draftFromRoute(full));
    expect(errors).toEqual({});
    expect(input).toEqual(full);
  });

  it('names each field a person left wrong, by its path in the route', () => {
    const draft = draftFromRoute({ name: ' ', match: '', strategy: 'balance', targets: [{ key: '' }, { key: 'k' }] });
    draft.targets[1].weight = '0';
    draft.targets[1].minPromptTokens = '-3';
    const { errors } = routeInputFromDraft(draft);
    expect(Object.keys(errors).sort()).toEqual(['match', 'name', 'targets[0].key', 'targets[1].weight', 'targets[1].when.min_prompt_tokens'].sort());
    expect(targetError(errors, 1, 'when')).toContain('Prompt tokens');
    expect(routeInputFromDraft({ ...draft, targets: [] }).errors.targets).toBe('Add at least one target');
  });

  it('puts a server error beside the field its param names, also from an import path', () => {
    expect(fieldOfParam('targets[1].key')).toBe('targets[1].key');
    expect(fieldOfParam('routes[2].match')).toBe('match');
    expect(isShownField('targets[1].key', 2)).toBe(true);
    expect(isShownField('targets[4].key', 2)).toBe(false);
    expect(isShownField('targets[0].when.tools', 1)).toBe(true);
    expect(isShownField('ids', 1)).toBe(false);
    expect(targetError({ 'targets[0]': 'Duplicate target' }, 0, 'key')).toBe('Duplicate target');
  });

  it('fills a glob to test it, and reads conditions as words', () => {
    expect(sampleModelFor('claude-haiku-*')).toBe('claude-haiku-example');
    expect(sampleModelFor('gpt-5')).toBe('gpt-5');
    expect(describeConditions({ min_prompt_tokens: 60000, thinking: true, tools: false })).toBe('prompt ≥ 60,000 tokens · thinking · no tools');
    expect(describeConditions(undefined)).toBe('');
  });

  it('computes the order after a move, or nothing at an end', () => {
    const list = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    expect(orderAfterMove(list, 'a', 1)).toEqual(['b', 'a', 'c']);
    expect(orderAfterMove(list, 'a', -1)).toBeNull();
    expect(orderAfterMove(list, 'missing', 1)).toBeNull();
  });
});

describe('routes files', () => {
  const yamlFile = [
    'routes:',
    '  - name: background',
    '    match: claude-haiku-*',
    '    strategy: fallback',
    '    targets:',
    '      - key: local-ollama',
    '        model: qwen3-coder:30b',
    '        timeout_ms: 30000',
    '      - key: anthropic-main',
  ].join('\n');

  it('reads YAML and JSON into the same routes file', () => {
    const fromYaml = parseRoutesFile(yamlFile).file;
    expect(fromYaml.routes[0].targets[0]).toEqual({ key: 'local-ollama', model: 'qwen3-coder:30b', timeout_ms: 30000 });
    expect(parseRoutesFile(JSON.stringify(fromYaml, null, 2)).file).toEqual(fromYaml);
  });

  it('turns a server param into the line of the file it points at', () => {
    const parsed = parseRoutesFile(yamlFile);
    expect(pathOfParam('routes[0].targets[1].key')).toEqual(['routes', 0, 'targets', 1, 'key']);
    expect(parsed.lineOf('routes[0].targets[1].key')).toBe(9);
    // A field that is missing points at its nearest parent.
    expect(parsed.lineOf('routes[0].targets[1].model')).toBe(9);
    const error = new ApiError("Virtual key 'anthropic-main' does not exist", 400, 'invalid_request_error', 'routes[0].targets[1].key');
    expect(describeImportError(error, parsed)).toBe("Line 9 (routes[0].targets[1].key): Virtual key 'anthropic-main' does not exist");
  });

  it('names the line of a syntax error, and refuses a file without a routes list', () => {
    const broken = () => parseRoutesFile('routes:\n  - name: a\n    targets: [\n');
    expect(broken).toThrow(RoutesFileError);
    expect(broken).toThrow(/^Line \d+: /);
    expect(() => parseRoutesFile('{"rutes": []}')).toThrow(/"routes" list/);
  });
});

describe('a virtual key’s models', () => {
  it('builds the default model and the map, ignoring empty rows', () => {
    const rows = [...rowsFromModelMap({ 'gpt-4o': 'qwen3:8b' }), { uid: -1, from: '', to: '' }];
    expect(buildKeyModels(' llama3.2 ', rows)).toEqual({ models: { defaultModel: 'llama3.2', modelMap: { 'gpt-4o': 'qwen3:8b' } }, error: null });
    expect(buildKeyModels('', []).models).toEqual({ defaultModel: null, modelMap: {} });
  });

  it('names a half-filled or repeated mapping as the server would', () => {
    expect(buildKeyModels('', [{ uid: 1, from: 'gpt-4o', to: '' }]).error?.param).toBe('modelMap.gpt-4o');
    expect(buildKeyModels('', [{ uid: 1, from: 'a', to: 'x' }, { uid: 2, from: 'a', to: 'y' }]).error?.message).toBe('a is mapped twice');
    expect(describeKeyModels({ defaultModel: 'llama3.2', modelMap: { a: 'b', c: 'd' } })).toBe('default llama3.2 · 2 mapped');
  });
});

describe('a routed request in the log detail', () => {
  it('shows the route, the serving target, and each attempt with why the gateway moved on', () => {
    const html = renderToStaticMarkup(
      <RouteTrail
        detail={{
          route: 'gpt',
          routeTarget: 'azure → gpt-4o',
          status: 200,
          error: null,
          attemptLog: [
            { status: 429, error: 'Rate limit reached', durationMs: 35, target: 'openai → gpt-4o', reason: '429' },
            { status: 200, error: null, durationMs: 410, target: 'azure → gpt-4o' },
          ],
        }}
      />,
    );
    expect(html).toContain('aria-label="Route and attempts"');
    expect(html).toContain('<strong>gpt</strong>');
    expect(html).toContain('served by');
    expect(html).toContain('openai → gpt-4o');
    expect(html).toContain('moved on: 429');
    expect(html).toContain('served the answer');
    expect(html).toContain('410 ms');
  });

  it('stays out of the way for a plain request with one attempt', () => {
    const html = renderToStaticMarkup(<RouteTrail detail={{ route: null, routeTarget: null, status: 200, error: null, attemptLog: [{ status: 200, error: null, durationMs: 5 }] }} />);
    expect(html).toBe('');
  });
});

describe('trying a model name in the Playground', () => {
  it('keeps the conversation and settings, swaps the model, and fills an empty prompt', () => {
    const current = { mode: 'chat' as const, model: 'gpt-4o', prompt: '', promptIsJson: false, messages: [{ role: 'system' as const, content: 'Be brief.' }], parameters: INITIAL_PARAMETERS };
    const draft = draftForModel(current, 'claude-haiku-example');
    expect(draft.model).toBe('claude-haiku-example');
    expect(draft.mode).toBe('chat');
    expect(draft.messages).toEqual([{ role: 'system', content: 'Be brief.' }]);
    expect(draft.prompt).not.toBe('');
    expect(draftForModel({ ...current, prompt: 'mine' }, 'x').prompt).toBe('mine');
  });

  it('sends only the gateway key when no provider is chosen, as a tool using a route does', () => {
    const auth = { kind: 'provider' as const, provider: '', providerToken: 'sk-leftover', customHost: 'http://127.0.0.1:9/v1', gatewayApiKey: 'gk-123' };
    expect(buildGatewayHeaders(auth)).toEqual({ 'content-type': 'application/json', 'x-gateway-api-key': 'gk-123' });
    const curl = curlSnippet({ origin: 'http://127.0.0.1:8787', endpoint: '/v1/chat/completions', auth: snippetAuthOf(auth), body: { model: 'fast' } });
    expect(curl).toContain('x-gateway-api-key: $GATEHOUSE_API_KEY');
    expect(curl).not.toContain('x-gateway-provider');
    expect(curl).not.toContain('Authorization');
    expect(curl).not.toContain('custom-host');
  });
});
