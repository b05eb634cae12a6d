// Copy as curl / Python / JavaScript, and logged streams assembled back into text.
import { describe, expect, it } from 'vitest';
import { curlSnippet, javascriptSnippet, pythonSnippet, type SnippetInput } from '../../../src-renderer/playground/code-snippets';
import { assembleStream, looksLikeEventStream } from '../../../src-renderer/logs/stream-assembly';

const virtualKeyInput: SnippetInput = {
  origin: 'http://127.0.0.1:8787',
  endpoint: '/v1/completions',
  auth: { kind: 'virtual-key' },
  body: { model: 'gpt-3.5-turbo-instruct', prompt: "it's", max_tokens: 16, echo: false, stream: true, seed: 2n ** 62n },
};

describe('copy as curl / Python / JavaScript', () => {
  it('writes a curl command that reads the key from the environment and quotes the body for the shell', () => {
    const curl = curlSnippet(virtualKeyInput);
    expect(curl).toContain('curl http://127.0.0.1:8787/v1/completions -N');
    expect(curl).toContain('-H "x-gateway-api-key: $GATEHOUSE_VIRTUAL_KEY"');
    expect(curl).toContain(`"prompt": "it'\\''s"`);
    expect(curl).toContain('"seed": 4611686018427387904');
  });

  it('writes Python with the OpenAI SDK, Python literals and a streaming loop', () => {
    const python = pythonSnippet(virtualKeyInput);
    expect(python).toContain('base_url="http://127.0.0.1:8787/v1"');
    expect(python).toContain('api_key=os.environ["GATEHOUSE_VIRTUAL_KEY"]');
    expect(python).toContain('echo=False,');
    expect(python).toContain('response = client.completions.create(');
    expect(python).toContain('for chunk in response:');
  });

  it('puts provider, gateway key and custom host into default headers in provider mode', () => {
    const input: SnippetInput = {
      ...virtualKeyInput,
      endpoint: '/v1/chat/completions',
      auth: { kind: 'provider', provider: 'ollama', customHost: 'http://localhost:11434/v1', hasGatewayApiKey: true, hasProviderToken: false },
      body: { model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }] },
    };
    const javascript = javascriptSnippet(input);
    expect(javascript).toContain('apiKey: "unused"');
    expect(javascript).toContain('"x-gateway-api-key": process.env.GATEHOUSE_API_KEY');
    expect(javascript).toContain('"x-gateway-custom-host": "http://localhost:11434/v1"');
    expect(javascript).toContain('client.chat.completions.create(');
    expect(javascript).toContain('console.log(response.choices[0].message.content);');
    const curl = curlSnippet(input);
    expect(curl).toContain('-H "x-gateway-provider: ollama"');
    expect(curl).not.toContain('Authorization');
  });

  it('builds the anthropic SDK client the same way in Messages mode: the gateway root, the key from the environment, headers', () => {
    const input: SnippetInput = {
      ...virtualKeyInput,
      endpoint: '/v1/messages',
      auth: { kind: 'provider', provider: 'anthropic', customHost: 'http://localhost:9000/v1', hasGatewayApiKey: true, hasProviderToken: true },
      body: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] },
    };
    const python = pythonSnippet(input);
    expect(python).toContain('client = Anthropic(\n    base_url="http://127.0.0.1:8787",');
    expect(python).toContain('    default_headers={\n');
    expect(python).toContain('"x-gateway-custom-host": "http://localhost:9000/v1",');
    const javascript = javascriptSnippet(input);
    expect(javascript).toContain('const client = new Anthropic({\n  baseURL: "http://127.0.0.1:8787",');
    expect(javascript).toContain('"x-gateway-api-key": process.env.GATEHOUSE_API_KEY,');
    expect(javascript).toContain('client.messages.create(');
  });
});

describe('assembling a logged stream', () => {
  const sse = [
    'data: {"choices":[{"index":0,"text":"Hel","finish_reason":null}]}',
    'data: {"choices":[{"index":0,"text":"lo","finish_reason":"stop"}]}',
    'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
    'data: [DONE]',
  ].join('\n\n');

  it('joins the text of each choice and keeps every raw event', () => {
    const assembled = assembleStream(sse);
    expect(assembled.choices).toEqual(['Hello']);
    expect(assembled.finishReasons).toEqual(['stop']);
    expect(assembled.events).toHaveLength(4);
    expect(looksLikeEventStream(sse)).toBe(true);
    expect(looksLikeEventStream('{"choices":[]}')).toBe(false);
  });

  it('reads chat deltas for several choices and reports error events', () => {
    const chat = [
      'data: {"choices":[{"index":1,"delta":{"content":"B"}}]}',
      'data: {"choices":[{"index":0,"delta":{"content":"A"}}]}',
      'data: {"error":{"message":"provider went away"}}',
    ].join('\n\n');
    const assembled = assembleStream(chat);
    expect(assembled.choices).toEqual(['A', 'B']);
    expect(assembled.errors).toEqual(['provider went away']);
  });

  it('accepts a JSON array of events too', () => {
    expect(assembleStream('[{"choices":[{"index":0,"text":"x"}]}, "[DONE]"]').choices).toEqual(['x']);
  });
});
