// "Copy as curl / Python / JavaScript" for the Playground request and the usage examples on the
// Keys page. Secrets are never written into a snippet: they are read from environment variables.
import type { GatewayAuth, GatewayEndpoint } from '../api/gateway-client';
import { stringifyJson } from './json-text';
import { ANTHROPIC_VERSION } from './messages';
import type { JsonValue, RequestBody } from './parameters';

export type SnippetLanguage = 'curl' | 'python' | 'javascript';

/** What a snippet needs to know about authentication, without the secret values. */
export type SnippetAuth =
  | { kind: 'virtual-key' }
  | { kind: 'provider'; provider: string; customHost: string; hasGatewayApiKey: boolean; hasProviderToken: boolean };

export const ENV_VIRTUAL_KEY = 'GATEHOUSE_VIRTUAL_KEY';
export const ENV_GATEWAY_KEY = 'GATEHOUSE_API_KEY';
export const ENV_PROVIDER_TOKEN = 'PROVIDER_API_KEY';

export function snippetAuthOf(auth: GatewayAuth): SnippetAuth {
  // A key picked by name is a virtual key too: a client sends it from its environment.
  if (auth.kind === 'virtual-key' || auth.kind === 'key-by-name') return { kind: 'virtual-key' };
  return {
    kind: 'provider',
    provider: auth.provider,
    // Without a provider a route picks the keys: a token or host of the client's own is not sent.
    customHost: auth.provider ? auth.customHost.trim() : '',
    hasGatewayApiKey: Boolean(auth.gatewayApiKey.trim()),
    hasProviderToken: Boolean(auth.provider && auth.providerToken.trim()),
  };
}

export interface SnippetInput {
  origin: string;
  endpoint: GatewayEndpoint;
  auth: SnippetAuth;
  body: RequestBody;
  /** Non-secret gateway headers (trace id, metadata, retries, timeout), written as they are. */
  extraHeaders?: Record<string, string>;
  /** Gemini mode: the model and whether it streams go in the path, not the body. */
  model?: string;
  stream?: boolean;
}

function shellSingleQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlSnippet({ origin, endpoint, auth, body, extraHeaders = {} }: SnippetInput): string {
  const lines = [`curl ${origin}${endpoint}${body.stream === true ? ' -N' : ''}`, `  -H "Content-Type: application/json"`];
  const isMessages = endpoint === '/v1/messages';
  if (isMessages) lines.push(`  -H "anthropic-version: ${ANTHROPIC_VERSION}"`);
  if (auth.kind === 'virtual-key') {
    // Messages clients (Claude Code, the anthropic SDK) send their key as x-api-key, Responses clients (Codex) as a bearer token.
    if (isMessages) lines.push(`  -H "x-api-key: $${ENV_VIRTUAL_KEY}"`);
    else if (endpoint === '/v1/responses') lines.push(`  -H "Authorization: Bearer $${ENV_VIRTUAL_KEY}"`);
    else lines.push(`  -H "x-gateway-api-key: $${ENV_VIRTUAL_KEY}"`);
  } else {
    if (auth.hasGatewayApiKey) lines.push(`  -H "x-gateway-api-key: $${ENV_GATEWAY_KEY}"`);
    if (auth.provider) lines.push(`  -H "x-gateway-provider: ${auth.provider}"`);
    if (auth.hasProviderToken) lines.push(`  -H "Authorization: Bearer $${ENV_PROVIDER_TOKEN}"`);
    if (auth.customHost) lines.push(`  -H ${shellSingleQuote(`x-gateway-custom-host: ${auth.customHost}`)}`);
  }
  for (const [name, value] of Object.entries(extraHeaders)) lines.push(`  -H ${shellSingleQuote(`${name}: ${value}`)}`);
  lines.push(`  -d ${shellSingleQuote(stringifyJson(body, 2))}`);
  return lines.join(' \\\n');
}

/** Short objects and arrays stay on one line, as a person would write them. */
const INLINE_LIMIT = 72;

function pythonLiteral(value: JsonValue, depth: number): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return JSON.stringify(value);
  const pad = '    '.repeat(depth + 1);
  const close = '    '.repeat(depth);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    const inline = `[${value.map((item) => pythonLiteral(item, 0)).join(', ')}]`;
    if (inline.length <= INLINE_LIMIT && !inline.includes('\n')) return inline;
    return `[\n${value.map((item) => pad + pythonLiteral(item, depth + 1)).join(',\n')},\n${close}]`;
  }
  const entries = Object.entries(value);
  if (!entries.length) return '{}';
  const inline = `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${pythonLiteral(item, 0)}`).join(', ')}}`;
  if (inline.length <= INLINE_LIMIT && !inline.includes('\n')) return inline;
  return `{\n${entries.map(([key, item]) => `${pad}${JSON.stringify(key)}: ${pythonLiteral(item, depth + 1)}`).join(',\n')},\n${close}}`;
}

function javascriptLiteral(value: JsonValue, depth: number, topLevel = false): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const pad = '  '.repeat(depth + 1);
  const close = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    const inline = `[${value.map((item) => javascriptLiteral(item, 0)).join(', ')}]`;
    if (inline.length <= INLINE_LIMIT && !inline.includes('\n')) return inline;
    return `[\n${value.map((item) => pad + javascriptLiteral(item, depth + 1)).join(',\n')},\n${close}]`;
  }
  const entries = Object.entries(value);
  if (!entries.length) return '{}';
  const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
  const inline = `{ ${entries.map(([name, item]) => `${key(name)}: ${javascriptLiteral(item, 0)}`).join(', ')} }`;
  // The request body itself always gets one field per line.
  if (!topLevel && inline.length <= INLINE_LIMIT && !inline.includes('\n')) return inline;
  return `{\n${entries.map(([name, item]) => `${pad}${key(name)}: ${javascriptLiteral(item, depth + 1)}`).join(',\n')},\n${close}}`;
}

function sdkHeaders(auth: SnippetAuth, extraHeaders: Record<string, string>): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  if (auth.kind === 'provider') {
    if (auth.hasGatewayApiKey) headers.push(['x-gateway-api-key', `env:${ENV_GATEWAY_KEY}`]);
    if (auth.provider) headers.push(['x-gateway-provider', auth.provider]);
    if (auth.customHost) headers.push(['x-gateway-custom-host', auth.customHost]);
  }
  return headers.concat(Object.entries(extraHeaders));
}

/** The env var whose value the SDK sends as its API key (Authorization: Bearer ...). */
function sdkApiKeyEnv(auth: SnippetAuth): string | null {
  if (auth.kind === 'virtual-key') return ENV_VIRTUAL_KEY;
  return auth.hasProviderToken ? ENV_PROVIDER_TOKEN : null;
}

/** The SDK client of a Python snippet: its class, base URL, key from the environment and extra headers. */
function pythonClient(className: string, baseUrl: string, auth: SnippetInput['auth'], extraHeaders: Record<string, string>): string[] {
  const apiKeyEnv = sdkApiKeyEnv(auth);
  const headers = sdkHeaders(auth, extraHeaders);
  const client = [`client = ${className}(`, `    base_url="${baseUrl}",`, `    api_key=${apiKeyEnv ? `os.environ["${apiKeyEnv}"]` : '"unused"'},`];
  if (headers.length) {
    client.push('    default_headers={');
    for (const [name, value] of headers) {
      client.push(`        "${name}": ${value.startsWith('env:') ? `os.environ["${value.slice(4)}"]` : JSON.stringify(value)},`);
    }
    client.push('    },');
  }
  client.push(')');
  return client;
}

/** The same for a JavaScript snippet. */
function javascriptClient(className: string, baseUrl: string, auth: SnippetInput['auth'], extraHeaders: Record<string, string>): string[] {
  const apiKeyEnv = sdkApiKeyEnv(auth);
  const headers = sdkHeaders(auth, extraHeaders);
  const client = [`const client = new ${className}({`, `  baseURL: "${baseUrl}",`, `  apiKey: ${apiKeyEnv ? `process.env.${apiKeyEnv}` : '"unused"'},`];
  if (headers.length) {
    client.push('  defaultHeaders: {');
    for (const [name, value] of headers) {
      client.push(`    "${name}": ${value.startsWith('env:') ? `process.env.${value.slice(4)}` : JSON.stringify(value)},`);
    }
    client.push('  },');
  }
  client.push('});');
  return client;
}

/** How an SDK calls one endpoint: its client, at which base URL, the method, and how the answer's text is printed. */
interface SdkCall {
  sdk: 'openai' | 'anthropic';
  /** The anthropic SDK's base URL is the gateway's root (it adds /v1/messages); the openai SDK's ends in /v1. */
  basePath: '' | '/v1';
  method: string;
  python: { stream: string[]; whole: string[] };
  javascript: { stream: string[]; whole: string[] };
}

const SDK_CALLS: Record<Exclude<GatewayEndpoint, '/v1beta/models'>, SdkCall> = {
  '/v1/completions': {
    sdk: 'openai',
    basePath: '/v1',
    method: 'completions.create',
    python: { stream: ['for chunk in response:', '    if chunk.choices:', '        print(chunk.choices[0].text, end="", flush=True)', 'print()'], whole: ['print(response.choices[0].text)'] },
    javascript: { stream: ['for await (const chunk of response) {', '  process.stdout.write(chunk.choices[0]?.text ?? "");', '}'], whole: ['console.log(response.choices[0].text);'] },
  },
  '/v1/chat/completions': {
    sdk: 'openai',
    basePath: '/v1',
    method: 'chat.completions.create',
    python: { stream: ['for chunk in response:', '    if chunk.choices:', '        print(chunk.choices[0].delta.content or "", end="", flush=True)', 'print()'], whole: ['print(response.choices[0].message.content)'] },
    javascript: { stream: ['for await (const chunk of response) {', '  process.stdout.write(chunk.choices[0]?.delta?.content ?? "");', '}'], whole: ['console.log(response.choices[0].message.content);'] },
  },
  '/v1/messages': {
    sdk: 'anthropic',
    basePath: '',
    method: 'messages.create',
    python: {
      stream: ['for event in response:', '    if event.type == "content_block_delta" and event.delta.type == "text_delta":', '        print(event.delta.text, end="", flush=True)', 'print()'],
      whole: ['print("".join(block.text for block in response.content if block.type == "text"))'],
    },
    javascript: {
      stream: ['for await (const event of response) {', '  if (event.type === "content_block_delta" && event.delta.type === "text_delta") process.stdout.write(event.delta.text);', '}'],
      whole: ['console.log(response.content.map((block) => (block.type === "text" ? block.text : "")).join(""));'],
    },
  },
  // As Codex calls the same endpoint.
  '/v1/responses': {
    sdk: 'openai',
    basePath: '/v1',
    method: 'responses.create',
    python: { stream: ['for event in response:', '    if event.type == "response.output_text.delta":', '        print(event.delta, end="", flush=True)', 'print()'], whole: ['print(response.output_text)'] },
    javascript: { stream: ['for await (const event of response) {', '  if (event.type === "response.output_text.delta") process.stdout.write(event.delta);', '}'], whole: ['console.log(response.output_text);'] },
  },
};

export function pythonSnippet({ origin, endpoint, auth, body, extraHeaders = {} }: SnippetInput): string {
  const call = SDK_CALLS[endpoint as keyof typeof SDK_CALLS];
  const anthropic = call.sdk === 'anthropic';
  const client = pythonClient(anthropic ? 'Anthropic' : 'OpenAI', `${origin}${call.basePath}`, auth, extraHeaders);
  const kwargs = Object.entries(body).map(([name, value]) => `    ${name}=${pythonLiteral(value, 1)},`);
  const output = body.stream === true ? call.python.stream : call.python.whole;
  const sdkImport = anthropic ? 'from anthropic import Anthropic' : 'from openai import OpenAI';
  return ['import os', sdkImport, '', ...client, '', `response = client.${call.method}(`, ...kwargs, ')', ...output].join('\n');
}

export function javascriptSnippet({ origin, endpoint, auth, body, extraHeaders = {} }: SnippetInput): string {
  const call = SDK_CALLS[endpoint as keyof typeof SDK_CALLS];
  const anthropic = call.sdk === 'anthropic';
  const client = javascriptClient(anthropic ? 'Anthropic' : 'OpenAI', `${origin}${call.basePath}`, auth, extraHeaders);
  const output = body.stream === true ? call.javascript.stream : call.javascript.whole;
  const sdkImport = anthropic ? 'import Anthropic from "@anthropic-ai/sdk";' : 'import OpenAI from "openai";';
  return [sdkImport, '', ...client, '', `const response = await client.${call.method}(${javascriptLiteral(body, 0, true)});`, ...output].join('\n');
}

/** Gemini mode: curl to the model's own path, or the @google/genai SDK (the key as x-goog-api-key). */
function geminiSnippet(language: SnippetLanguage, input: SnippetInput): string {
  const model = input.model?.trim() || 'your-model';
  const stream = input.stream === true;
  const keyEnv = input.auth.kind === 'virtual-key' ? ENV_VIRTUAL_KEY : ENV_GATEWAY_KEY;
  if (language === 'curl') {
    const path = `/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    const lines = [`curl ${shellSingleQuote(`${input.origin}${path}`)}${stream ? ' -N' : ''}`, '  -H "Content-Type: application/json"', `  -H "x-goog-api-key: $${keyEnv}"`];
    for (const [name, value] of Object.entries(input.extraHeaders ?? {})) lines.push(`  -H ${shellSingleQuote(`${name}: ${value}`)}`);
    lines.push(`  -d ${shellSingleQuote(JSON.stringify(input.body))}`);
    return lines.join(' \\\n');
  }
  const { contents, systemInstruction, generationConfig } = input.body as Record<string, JsonValue>;
  const config: Record<string, JsonValue> = { ...(systemInstruction ? { systemInstruction } : {}), ...((generationConfig as Record<string, JsonValue> | undefined) ?? {}) };
  if (language === 'python') {
    return [
      'import os',
      'from google import genai',
      '',
      `client = genai.Client(api_key=os.environ["${keyEnv}"], http_options={"base_url": ${JSON.stringify(input.origin)}})`,
      `response = client.models.${stream ? 'generate_content_stream' : 'generate_content'}(`,
      `    model=${JSON.stringify(model)},`,
      `    contents=${pythonLiteral(contents, 1)},`,
      ...(Object.keys(config).length ? [`    config=${pythonLiteral(config, 1)},`] : []),
      ')',
      ...(stream ? ['for chunk in response:', '    print(chunk.text or "", end="", flush=True)', 'print()'] : ['print(response.text)']),
    ].join('\n');
  }
  return [
    'import { GoogleGenAI } from "@google/genai";',
    '',
    `const ai = new GoogleGenAI({ apiKey: process.env.${keyEnv}, httpOptions: { baseUrl: ${JSON.stringify(input.origin)} } });`,
    `const response = await ai.models.${stream ? 'generateContentStream' : 'generateContent'}(${javascriptLiteral({ model, contents, ...(Object.keys(config).length ? { config } : {}) }, 0, true)});`,
    ...(stream ? ['for await (const chunk of response) process.stdout.write(chunk.text ?? "");'] : ['console.log(response.text);']),
  ].join('\n');
}

export function codeSnippet(language: SnippetLanguage, input: SnippetInput): string {
  if (input.endpoint === '/v1beta/models') return geminiSnippet(language, input);
  if (language === 'curl') return curlSnippet(input);
  if (language === 'python') return pythonSnippet(input);
  return javascriptSnippet(input);
}
