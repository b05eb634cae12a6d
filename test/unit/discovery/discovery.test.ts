// Naming a server by what it answers (the kinds with no fake server of their own: Jan, LocalAI, a
// plain OpenAI-compatible one), what is not a model server, and the service's memory of servers.
import { describe, expect, it } from 'vitest';
import { identify, type Answers } from '../../../src-main/discovery/identify.js';
import { parsePortList, probePorts, usualPorts } from '../../../src-main/discovery/ports.js';
import { DiscoveryService } from '../../../src-main/discovery/service.js';
import type { DiscoveredServer } from '../../../src-main/discovery/types.js';

const ok = (json: unknown) => ({ status: 200, json });
const list = (data: object[]) => ok({ object: 'list', data });

describe('identify', () => {
  it('names LocalAI by its /readyz beside /v1/models, with the version it reports', () => {
    const answers: Answers = { '/readyz': ok(undefined), '/version': ok({ version: 'v2.28.0' }), '/v1/models': list([{ id: 'phi-3', object: 'model' }]) };
    expect(identify('127.0.0.1', 8080, answers)).toMatchObject({ kind: 'localai', version: 'v2.28.0', models: [{ id: 'phi-3' }], url: 'http://127.0.0.1:8080/v1' });
  });

  it("names Jan by its port or its model.json fields, with each model's ctx_len", () => {
    const jan = list([{ id: 'llama3.2-3b-instruct', object: 'model', engine: 'llama-cpp', settings: { ctx_len: 8192 } }]);
    expect(identify('127.0.0.1', 5555, { '/v1/models': jan })).toMatchObject({ kind: 'jan', models: [{ id: 'llama3.2-3b-instruct', contextLength: 8192 }] });
    expect(identify('127.0.0.1', 1337, { '/v1/models': list([{ id: 'm', object: 'model' }]) })?.kind).toBe('jan');
  });

  it('calls anything else that lists models the OpenAI way openai-compatible, reached as openai with a custom host', () => {
    const found = identify('::1', 5000, { '/v1/models': list([{ id: 'mistral-7b', object: 'model', owned_by: 'me' }]) });
    expect(found).toMatchObject({ kind: 'openai-compatible', url: 'http://[::1]:5000/v1', connection: { provider: 'openai-compatible', customHost: 'http://[::1]:5000/v1' } });
  });

  it("names a llama.cpp server by /props even though it also answers Ollama's /api/tags", () => {
    const answers: Answers = {
      '/props': ok({ default_generation_settings: { n_ctx: 4096 }, total_slots: 1, build_info: 'b6000-abc' }),
      '/api/tags': ok({ models: [{ name: 'model.gguf', model: 'model.gguf' }] }),
      '/v1/models': list([{ id: 'model.gguf', object: 'model', owned_by: 'llamacpp', meta: { size: 1000, n_ctx_train: 8192 } }]),
    };
    expect(identify('127.0.0.1', 8080, answers)).toMatchObject({ kind: 'llamacpp', version: 'b6000-abc', models: [{ id: 'model.gguf', size: 1000, contextLength: 4096 }] });
  });

  it('lists nothing for JSON that only looks close: health answers, lists of the wrong shape, an error body', () => {
    expect(identify('127.0.0.1', 3000, { '/v1/models': ok({ status: 'ok' }), '/api/tags': ok({ tags: [] }), '/props': ok({ name: 'x' }) })).toBeUndefined();
    expect(identify('127.0.0.1', 3000, { '/v1/models': ok({ data: [{ name: 'no id' }] }) })).toBeUndefined();
    expect(identify('127.0.0.1', 3000, { '/v1/models': ok({ data: 'nope' }), '/readyz': ok(undefined) })).toBeUndefined();
    expect(identify('127.0.0.1', 3000, {})).toBeUndefined();
  });
});

describe('ports', () => {
  it('takes the usual ports, or the environment override, plus extras once, never the excluded one', () => {
    expect(usualPorts({})).toEqual([11434, 1234, 8080, 8000, 1337]);
    expect(usualPorts({ GATEHOUSE_DISCOVERY_PORTS: '' })).toEqual([]);
    expect(usualPorts({ GATEHOUSE_DISCOVERY_PORTS: '11434, 9000' })).toEqual([11434, 9000]);
    expect(() => parsePortList('11434,abc')).toThrow(/'abc' is not a port/);
    expect(probePorts([11434, 8080], [8080, 9000, 8787], [8787])).toEqual([11434, 8080, 9000]);
  });
});

describe('the discovery service', () => {
  const server = (port: number, models = ['m']): DiscoveredServer => ({
    kind: 'openai-compatible',
    url: `http://127.0.0.1:${port}/v1`,
    host: '127.0.0.1',
    port,
    version: null,
    models: models.map((id) => ({ id })),
    connection: { provider: 'openai-compatible', customHost: `http://127.0.0.1:${port}/v1` },
  });

  it('keeps a server that stopped answering as offline with its last models, online ones first', async () => {
    let answering = [server(9001), server(9002, ['a', 'b'])];
    let now = Date.parse('2026-01-01T10:00:00Z');
    const service = new DiscoveryService({ ports: () => [9001, 9002], discover: async () => answering, now: () => now });
    await service.refresh();
    answering = [server(9001)];
    now += 60_000;
    const { items } = await service.refresh();
    expect(items.map((item) => [item.port, item.online])).toEqual([
      [9001, true],
      [9002, false],
    ]);
    expect(items[1]).toMatchObject({ lastSeen: '2026-01-01T10:00:00.000Z', models: [{ id: 'a' }, { id: 'b' }] });
    expect(items[0].lastSeen).toBe('2026-01-01T10:01:00.000Z');
  });

  it('sweeps again by itself when the ports change, and not at all once stopped', async () => {
    let ports = [9001];
    const swept: number[][] = [];
    const service = new DiscoveryService({ ports: () => ports, discover: async (p) => (swept.push(p), p.map((port) => server(port))) });
    await service.refresh();
    ports = [9001, 9002];
    expect(service.list().refreshing).toBe(true);
    await service.refresh();
    expect(service.list().items.map((item) => item.port)).toEqual([9001, 9002]);
    expect(swept).toEqual([[9001], [9001, 9002]]);
    service.stop();
    ports = [9003];
    expect(service.list().refreshing).toBe(false);
    expect(swept).toHaveLength(2);
  });
});
