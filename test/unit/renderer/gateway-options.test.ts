// The gateway's own request headers as Playground fields, with the gateway's bounds.
import { describe, expect, it } from 'vitest';
import { buildGatewayOptionHeaders, EMPTY_GATEWAY_OPTIONS } from '../../../src-renderer/playground/gateway-options';
import { curlSnippet, pythonSnippet } from '../../../src-renderer/playground/code-snippets';

describe('gateway options in the Playground (CONTRACT §3 headers)', () => {
  it('sends nothing when left empty', () => {
    expect(buildGatewayOptionHeaders(EMPTY_GATEWAY_OPTIONS)).toEqual({ headers: {}, errors: {} });
  });

  it('turns the fields into x-gateway-* headers', () => {
    const built = buildGatewayOptionHeaders({ traceId: ' run-1 ', metadata: '{"team": "search"}', retryCount: '3', requestTimeoutMs: '5000' });
    expect(built.errors).toEqual({});
    expect(built.headers).toEqual({
      'x-gateway-trace-id': 'run-1',
      'x-gateway-metadata': '{"team":"search"}',
      'x-gateway-retry-count': '3',
      'x-gateway-request-timeout': '5000',
    });
  });

  it('refuses metadata that is not an object of strings, retries above 5 and a zero timeout', () => {
    const built = buildGatewayOptionHeaders({ traceId: '', metadata: '{"n": 1}', retryCount: '6', requestTimeoutMs: '0' });
    expect(Object.keys(built.errors).sort()).toEqual(['metadata', 'requestTimeoutMs', 'retryCount']);
    expect(built.headers).toEqual({});
  });

  it('writes them into the snippets as they are (they hold no secret)', () => {
    const input = { origin: 'http://h', endpoint: '/v1/completions' as const, auth: { kind: 'virtual-key' as const }, body: { model: 'm', prompt: 'p' }, extraHeaders: { 'x-gateway-trace-id': 'run-1' } };
    expect(curlSnippet(input)).toContain(`-H 'x-gateway-trace-id: run-1'`);
    expect(pythonSnippet(input)).toContain('"x-gateway-trace-id": "run-1"');
  });
});
