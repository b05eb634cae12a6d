// The parsers at the edge, hammered directly (many more cases than over HTTP): the gateway headers,
// the two request schemas and the JSON body. Each either returns typed data or throws the one error
// type with a 400; nothing else may escape.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readGatewayHeaders } from '../../../src-main/gateway/gateway-headers.js';
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';
import { GatewayError } from '../../../src-main/core/errors.js';

function expectReturnsOr400(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const failure = error as GatewayError;
    expect(failure.status).toBe(400);
    expect(failure.type).toBe('invalid_request_error');
    expect(failure.message.length).toBeGreaterThan(0);
    expect(failure.param === null || typeof failure.param === 'string').toBe(true);
  }
}

const GATEWAY_HEADERS = [
  'x-gateway-api-key', 'x-gateway-provider', 'x-gateway-custom-host', 'x-gateway-retry-count', 'x-gateway-request-timeout',
  'x-gateway-forward-headers', 'x-gateway-trace-id', 'x-gateway-metadata', 'x-gateway-cloud-a-resource-name',
  'x-gateway-cloud-b-project-id', 'x-gateway-cloud-c-secret-access-key', 'authorization', 'x-api-key', 'host', 'content-length',
];
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', ' ', '[', '[]', '["a",1]', '{"a":"b"}', '{"a":1}', 'null', '5', '6', '-1', '007', '1e3', 'Bearer ', 'Bearer x'),
);
const headerMap = fc.dictionary(fc.oneof(fc.constantFrom(...GATEWAY_HEADERS), fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/)), fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })), { maxKeys: 8 });

describe('readGatewayHeaders', () => {
  it('any headers: typed values within their bounds, or a 400 naming the header', () => {
    fc.assert(
      fc.property(headerMap, (headers) => {
        expectReturnsOr400(() => {
          const parsed = readGatewayHeaders(headers);
          expect(parsed.retryCount).toBeGreaterThanOrEqual(0);
          expect(parsed.retryCount).toBeLessThanOrEqual(5);
          expect(parsed.timeoutMs).toBeGreaterThanOrEqual(1);
          expect(parsed.timeoutMs).toBeLessThanOrEqual(600_000);
          expect(typeof parsed.traceId).toBe('string');
          for (const value of Object.values(parsed.metadata)) expect(typeof value).toBe('string');
          for (const name of Object.keys(parsed.forwardHeaders)) {
            expect(name.startsWith('x-gateway-')).toBe(false);
            expect(['host', 'content-length']).not.toContain(name);
          }
        });
      }),
      { numRuns: 5_000 },
    );
  });
});

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.double(), fc.constant(-0), fc.constant(2 ** 63), fc.constant(Number.MAX_SAFE_INTEGER + 2));
const requestLike = fc.record(
  {
    model: fc.oneof(fc.string({ maxLength: 8 }), anyValue),
    prompt: fc.oneof(fc.string({ maxLength: 8 }), fc.array(fc.oneof(fc.string(), fc.integer(), fc.array(fc.integer({ min: -2, max: 100 }))), { maxLength: 3 }), anyValue),
    messages: fc.oneof(fc.array(fc.record({ role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool', 'developer'), anyValue), content: anyValue }, { requiredKeys: [] }), { maxLength: 3 }), anyValue),
    temperature: anyValue, top_p: anyValue, n: anyValue, best_of: anyValue, max_tokens: anyValue, max_completion_tokens: anyValue,
    logprobs: anyValue, top_logprobs: anyValue, echo: anyValue, stop: anyValue, stream: anyValue, stream_options: anyValue,
    logit_bias: fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 3 }), anyValue),
    seed: anyValue, presence_penalty: anyValue, frequency_penalty: anyValue, suffix: anyValue, user: anyValue,
  },
  { requiredKeys: [] },
);

describe('validateCompletion and validateChat', () => {
  it('any JSON value: a validated body or a 400', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        expectReturnsOr400(() => validateCompletion(value));
        expectReturnsOr400(() => validateChat(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('request-shaped objects with any field values: a validated body or a 400 naming the field at fault', () => {
    fc.assert(
      fc.property(requestLike, (body) => {
        for (const validate of [validateCompletion, validateChat]) {
          try {
            const parsed = validate(body) as Record<string, unknown>;
            // What passes is within the spec's bounds.
            if (typeof parsed.temperature === 'number') expect(parsed.temperature).toBeLessThanOrEqual(2);
            if (typeof parsed.n === 'number') expect(parsed.n).toBeGreaterThanOrEqual(1);
          } catch (error) {
            expect(error).toBeInstanceOf(GatewayError);
            const failure = error as GatewayError;
            expect(failure.status).toBe(400);
            if (failure.param !== null) expect(Object.keys(body).concat(['prompt', 'messages', 'model'])).toContain(failure.param);
          }
        }
      }),
      { numRuns: 5_000 },
    );
  });
});
