// A local stand-in for an OpenAI-format provider (OpenAI, Groq, Ollama's /v1 ...), speaking OpenAI's
// wire format: JSON answers, `data:` SSE streams ending in `data: [DONE]`, `{error:{...}}` errors.
// Tests read what it received (URL, headers, exact body bytes) and can script what it answers.
import type { ServerResponse } from 'node:http';
import { startRecordingServer, type Behaviour, type RecordedRequest, type RecordingServer } from './recording-server.js';
import { fakeTokenCount, fakeVector } from './embeddings.js';

export type { RecordedRequest };
/** A scripted answer for the next request. */
export type FakeBehaviour = Behaviour;

export interface OpenAIFake extends RecordingServer {
  /** Base URL including `/v1`, as a custom host. */
  baseUrl: string;
}

export const completionText = (prompt: unknown) => `echo: ${typeof prompt === 'string' ? prompt : JSON.stringify(prompt)}`;

export const FAKE_MODELS = {
  object: 'list',
  data: [
    { id: 'gpt-3.5-turbo-instruct', object: 'model', created: 1692901427, owned_by: 'system' },
    { id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' },
  ],
};

// ---- The checks OpenAI makes of a request (pure, usable without a server) -------------------------------

export interface OpenAIProblem {
  message: string;
  param: string | null;
  code: string | null;
  type?: string;
}

const jsonTypeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value);
const problem = (message: string, param: string | null, code: string | null): OpenAIProblem => ({ message, param, code });
const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

export interface OpenAICheckOptions {
  /** Azure's deployment routes name the model in the path: `model` in the body is then optional. */
  modelInPath?: boolean;
}

function commonProblem(json: unknown, options: OpenAICheckOptions): OpenAIProblem | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return problem("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)", null, null);
  }
  if (options.modelInPath) return undefined;
  const model = (json as Record<string, unknown>).model;
  if (model === undefined || model === null || model === '') return problem('you must provide a model parameter', null, null);
  if (typeof model !== 'string') return problem(`Invalid type for 'model': expected a string, but got ${jsonTypeName(model)} instead.`, 'model', 'invalid_type');
  return undefined;
}

/** The checks of `POST /v1/chat/completions`, with the `param` and `code` OpenAI names. */
export function openaiChatProblem(json: unknown, options: OpenAICheckOptions = {}): OpenAIProblem | undefined {
  const common = commonProblem(json, options);
  if (common) return common;
  const messages = (json as Record<string, unknown>).messages;
  if (messages === undefined) return problem("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(messages)) return problem(`Invalid type for 'messages': expected an array of objects, but got ${jsonTypeName(messages)} instead.`, 'messages', 'invalid_type');
  if (messages.length === 0) return problem("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  for (const [i, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return problem(`Invalid type for 'messages[${i}]': expected an object, but got ${jsonTypeName(message)} instead.`, `messages[${i}]`, 'invalid_type');
    const role = (message as Record<string, unknown>).role;
    if (role === undefined) return problem(`Missing required parameter: 'messages[${i}].role'.`, `messages[${i}].role`, 'missing_required_parameter');
    if (typeof role !== 'string' || !CHAT_ROLES.includes(role)) {
      return problem(`Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`, 'invalid_value');
    }
  }
  return undefined;
}

/** `prompt` may be a string, an array of strings, an array of token ids, or an array of token-id arrays. */
function isPrompt(prompt: unknown): boolean {
  if (typeof prompt === 'string') return true;
  if (!Array.isArray(prompt)) return false;
  const isTokens = (value: unknown) => Array.isArray(value) && value.every((token) => Number.isInteger(token));
  return prompt.every((item) => typeof item === 'string') || isTokens(prompt) || prompt.every(isTokens);
}

/** The checks of `POST /v1/completions`, with the `param` and `code` OpenAI names. */
export function openaiCompletionProblem(json: unknown, options: OpenAICheckOptions = {}): OpenAIProblem | undefined {
  const common = commonProblem(json, options);
  if (common) return common;
  const prompt = (json as Record<string, unknown>).prompt;
  if (prompt === undefined) return problem("Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
  if (!isPrompt(prompt)) return problem(`Invalid type for 'prompt': expected one of a string, array of strings, array of integers, or array of arrays of integers, but got ${jsonTypeName(prompt)} instead.`, 'prompt', 'invalid_type');
  return undefined;
}

/** Chat Completions body rules: the message of OpenAI's 400, or undefined when the real API would accept the body. */
export const openaiChatRequestProblem = (json: unknown, options?: OpenAICheckOptions): string | undefined => openaiChatProblem(json, options)?.message;
/** Legacy Completions body rules: the message of OpenAI's 400, or undefined when the real API would accept the body. */
export const openaiCompletionRequestProblem = (json: unknown, options?: OpenAICheckOptions): string | undefined => openaiCompletionProblem(json, options)?.message;

function sendOpenAIError(res: ServerResponse, status: number, error: OpenAIProblem, type = 'invalid_request_error'): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: error.message, type: error.type ?? type, param: error.param, code: error.code } }));
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---- Embeddings (`POST /v1/embeddings`) ---------------------------------------------------------------

/** The vector length the double makes when no `dimensions` is asked for. */
export const FAKE_EMBEDDING_DIMENSIONS = 16;
const EMBEDDING_FIELDS = ['model', 'input', 'encoding_format', 'dimensions', 'user'];

/** The checks OpenAI makes of an embeddings body, with its `param` and `code`; undefined when it would accept it. */
export function openaiEmbeddingsProblem(json: unknown, options: OpenAICheckOptions = {}): OpenAIProblem | undefined {
  const common = commonProblem(json, options);
  if (common) return common;
  const body = json as Record<string, unknown>;
  const unknown = Object.keys(body).find((key) => !EMBEDDING_FIELDS.includes(key));
  if (unknown) return problem(`Unrecognized request argument supplied: ${unknown}`, null, null);
  const input = body.input;
  if (input === undefined) return problem("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const isTokens = (value: unknown) => Array.isArray(value) && value.length > 0 && value.every((token) => Number.isInteger(token) && (token as number) >= 0);
  const valid =
    (typeof input === 'string' && input !== '') ||
    (Array.isArray(input) && input.length > 0 && input.length <= 2048 && (input.every((item) => typeof item === 'string' && item !== '') || isTokens(input) || input.every(isTokens)));
  if (!valid) return problem("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'input', 'invalid_value');
  if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
    return problem(`Invalid value: '${String(body.encoding_format)}'. Supported values are: 'float' and 'base64'.`, 'encoding_format', 'invalid_value');
  }
  if (body.dimensions !== undefined && !(Number.isInteger(body.dimensions) && (body.dimensions as number) > 0)) return problem(`Invalid value for 'dimensions': expected a positive integer.`, 'dimensions', 'invalid_value');
  if (body.user !== undefined && typeof body.user !== 'string') return problem(`Invalid type for 'user': expected a string, but got ${jsonTypeName(body.user)} instead.`, 'user', 'invalid_type');
  return undefined;
}

/** The text a double embeds for one input (token arrays by their ids). */
const embeddedText = (input: unknown): string => (typeof input === 'string' ? input : (input as number[]).join(' '));

function answerEmbeddings(request: RecordedRequest, res: ServerResponse): void {
  const parsed = request.body.length ? safeParse(request.body.toString('utf8')) : undefined;
  const invalid = openaiEmbeddingsProblem(parsed);
  if (invalid) return sendOpenAIError(res, 400, invalid);
  const body = parsed as Record<string, unknown>;
  const inputs: unknown[] = typeof body.input === 'string' || typeof (body.input as unknown[])[0] === 'number' ? [body.input] : (body.input as unknown[]);
  const dimensions = (body.dimensions as number | undefined) ?? FAKE_EMBEDDING_DIMENSIONS;
  const base64 = body.encoding_format === 'base64';
  const data = inputs.map((input, index) => {
    const vector = fakeVector(embeddedText(input), dimensions);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce<number>((sum, input) => sum + (typeof input === 'string' ? fakeTokenCount(input) : (input as number[]).length), 0);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_fake_embed' });
  res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
}

export function defaultAnswer(request: RecordedRequest, res: ServerResponse): void {
  const path = request.url.split('?')[0];
  if (request.method === 'POST' && path.endsWith('/embeddings')) return answerEmbeddings(request, res);
  if (request.method === 'GET' && path.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(FAKE_MODELS));
    return;
  }
  const isChat = path.endsWith('/chat/completions');
  if (request.method !== 'POST' || !(isChat || path.endsWith('/completions'))) {
    return sendOpenAIError(res, 404, { message: `Invalid URL (${request.method} ${path})`, param: null, code: null });
  }
  const parsed = request.body.length ? safeParse(request.body.toString('utf8')) : undefined;
  const invalid = isChat ? openaiChatProblem(parsed) : openaiCompletionProblem(parsed);
  if (invalid) return sendOpenAIError(res, 400, invalid);
  const body = request.json;
  const text = isChat ? 'Hello from the fake' : completionText(body.prompt);
  const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_fake' });
    const words = text.split(' ');
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    words.forEach((word, i) => {
      const piece = (i ? ' ' : '') + word;
      const choice = isChat
        ? { index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }
        : { index: 0, text: piece, logprobs: null, finish_reason: null };
      const chunk = { id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [choice], ...(includeUsage ? { usage: null } : {}) };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    const last = isChat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', logprobs: null, finish_reason: 'stop' };
    res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [last] })}\n\n`);
    if (includeUsage) {
      res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
    return;
  }
  const answer = isChat
    ? { id: 'chatcmpl-fake', object: 'chat.completion', created: 1700000000, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }], usage }
    : { id: 'cmpl-fake', object: 'text_completion', created: 1700000000, model: body.model, choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage };
  const json = JSON.stringify(answer);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_fake' });
  res.end(json);
}

export function openAIError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): FakeBehaviour {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code } }));
  };
}

export async function startOpenAIFake(): Promise<OpenAIFake> {
  const server = await startRecordingServer(defaultAnswer);
  return { ...server, baseUrl: `${server.origin}/v1` };
}
