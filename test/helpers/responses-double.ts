// A strict stand-in for OpenAI's Responses API (`POST /v1/responses`), in its real wire format, for the
// dialect tests (test/fakes/openai.ts serves only Chat and Completions). It checks what the real API
// checks that a translator could get wrong — the item shapes of `input`, function_call / function_call_output
// pairing by `call_id`, flat function tools, chat-only parameters, `previous_response_id` against what it
// stored — and answers as OpenAI does: a `response` object, or a typed SSE stream (`event:` + `data:`,
// every event with `sequence_number`, ending in `response.completed`, no `[DONE]`).
// With function tools declared it calls the first one, unless the input ends in a function_call_output.
import type { ServerResponse } from 'node:http';
import { sendJson, startRecordingServer, writeSseEvents, type Behaviour, type RecordedRequest, type RecordingServer } from '../fakes/recording-server.js';

export interface ResponsesDouble extends RecordingServer {
  /** `http://127.0.0.1:PORT/v1`, as a custom host. */
  baseUrl: string;
  /** Responses it stored (`store` not false), by id, for `previous_response_id` and `GET /v1/responses/{id}`. */
  stored: Map<string, { input: unknown[]; output: unknown[]; response: unknown }>;
}

export interface ResponsesProblem {
  message: string;
  param: string | null;
  code: string | null;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const problem = (message: string, param: string | null, code: string | null = null): ResponsesProblem => ({ message, param, code });

export const RESPONSES_USAGE = { input_tokens: 21, input_tokens_details: { cached_tokens: 3 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 28 };

/** Parameters of Chat Completions that the Responses API refuses (a translator that leaks them is caught). */
const CHAT_ONLY_PARAMETERS = ['messages', 'max_tokens', 'max_completion_tokens', 'n', 'functions', 'function_call', 'response_format', 'stop', 'logit_bias', 'presence_penalty', 'frequency_penalty'];
const MESSAGE_ROLES = ['user', 'assistant', 'system', 'developer'];
const USER_PART_TYPES = ['input_text', 'input_image', 'input_file', 'input_audio'];
const ASSISTANT_PART_TYPES = ['output_text', 'refusal'];
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference', 'custom_tool_call', 'custom_tool_call_output', 'web_search_call', 'local_shell_call', 'local_shell_call_output'];

/**
 * The checks of `POST /v1/responses`, with the `param` OpenAI names. `stored` holds the ids of responses
 * it could continue from. Returns undefined when the real API would accept the body.
 */
export function responsesRequestProblem(json: unknown, stored: ReadonlyMap<string, unknown> = new Map()): ResponsesProblem | undefined {
  if (!isObject(json)) return problem("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)", null);
  if (json.model === undefined || json.model === '') return problem("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  if (typeof json.model !== 'string') return problem("Invalid type for 'model': expected a string.", 'model', 'invalid_type');
  for (const name of CHAT_ONLY_PARAMETERS) {
    if (name in json) return problem(`Unsupported parameter: '${name}'. In the Responses API, this parameter is not supported.`, name, 'unsupported_parameter');
  }
  if (json.max_output_tokens !== undefined && json.max_output_tokens !== null) {
    if (!Number.isInteger(json.max_output_tokens) || (json.max_output_tokens as number) < 16) {
      return problem(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${String(json.max_output_tokens)} instead.`, 'max_output_tokens', 'integer_below_min_value');
    }
  }
  if (json.previous_response_id !== undefined && json.previous_response_id !== null) {
    if (!stored.has(String(json.previous_response_id))) return problem(`Previous response with id '${String(json.previous_response_id)}' not found.`, 'previous_response_id', 'previous_response_not_found');
  }
  if (json.tools !== undefined) {
    if (!Array.isArray(json.tools)) return problem("Invalid type for 'tools': expected an array of objects.", 'tools', 'invalid_type');
    for (const [i, tool] of json.tools.entries()) {
      if (!isObject(tool)) return problem(`Invalid type for 'tools[${i}]': expected an object.`, `tools[${i}]`, 'invalid_type');
      if (tool.type === 'function') {
        // Chat's nested `{type, function:{name}}` is refused: Responses tools are flat.
        if ('function' in tool) return problem(`Unknown parameter: 'tools[${i}].function'.`, `tools[${i}].function`, 'unknown_parameter');
        if (typeof tool.name !== 'string' || tool.name === '') return problem(`Missing required parameter: 'tools[${i}].name'.`, `tools[${i}].name`, 'missing_required_parameter');
      }
    }
  }
  const input = json.input;
  if (input === undefined || typeof input === 'string') return undefined;
  if (!Array.isArray(input)) return problem("Invalid type for 'input': expected one of a string or array of input items.", 'input', 'invalid_type');
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  for (const [i, item] of input.entries()) {
    if (!isObject(item)) return problem(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`, 'invalid_type');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (typeof type !== 'string' || !ITEM_TYPES.includes(type)) return problem(`Invalid value: '${String(type)}'. Supported values are: ${ITEM_TYPES.map((t) => `'${t}'`).join(', ')}.`, `input[${i}].type`, 'invalid_value');
    if (type === 'message') {
      if (typeof item.role !== 'string' || !MESSAGE_ROLES.includes(item.role)) {
        return problem(`Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`, `input[${i}].role`, 'invalid_value');
      }
      if (typeof item.content === 'string') continue;
      if (!Array.isArray(item.content)) return problem(`Missing required parameter: 'input[${i}].content'.`, `input[${i}].content`, 'missing_required_parameter');
      const allowed = item.role === 'assistant' ? ASSISTANT_PART_TYPES : USER_PART_TYPES;
      for (const [j, part] of item.content.entries()) {
        const partType = isObject(part) ? part.type : undefined;
        if (typeof partType !== 'string' || !allowed.includes(partType)) {
          return problem(`Invalid value: '${String(partType)}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(' and ')}.`, `input[${i}].content[${j}]`, 'invalid_value');
        }
        if ((partType === 'input_text' || partType === 'output_text') && typeof (part as Json).text !== 'string') {
          return problem(`Missing required parameter: 'input[${i}].content[${j}].text'.`, `input[${i}].content[${j}].text`, 'missing_required_parameter');
        }
      }
    } else if (type === 'function_call') {
      for (const field of ['call_id', 'name', 'arguments']) {
        if (typeof item[field] !== 'string') return problem(`Missing required parameter: 'input[${i}].${field}'.`, `input[${i}].${field}`, 'missing_required_parameter');
      }
      calls.set(String(item.call_id), i);
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') return problem(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}].call_id`, 'missing_required_parameter');
      if (typeof item.output !== 'string' && !Array.isArray(item.output)) return problem(`Missing required parameter: 'input[${i}].output'.`, `input[${i}].output`, 'missing_required_parameter');
      if (!calls.has(item.call_id) && json.previous_response_id == null) {
        return problem(`No tool call found for function call output with call_id ${item.call_id}.`, 'input', null);
      }
      answered.add(item.call_id);
    }
  }
  for (const callId of calls.keys()) {
    if (!answered.has(callId)) return problem(`No tool output found for function call ${callId}.`, 'input', null);
  }
  return undefined;
}

function sendOpenAIError(res: ServerResponse, status: number, error: ResponsesProblem, type = 'invalid_request_error'): void {
  sendJson(res, status, { error: { message: error.message, type, param: error.param, code: error.code } }, { 'x-request-id': 'req_resp_error' });
}

export function responsesError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): Behaviour {
  return (_request, res) => sendOpenAIError(res, status, { message, param: null, code }, type);
}

function lastUserText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  const last = [...input].reverse().find((item) => isObject(item) && item.role === 'user') as Json | undefined;
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as Json[]).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** What the double "generates": the last user text echoed, or what the tools said. */
export function responsesReply(json: Json): string {
  const input = Array.isArray(json.input) ? (json.input as Json[]) : [];
  const outputs = input.filter((item) => item.type === 'function_call_output').map((item) => String(item.output));
  if (outputs.length && input.at(-1)?.type === 'function_call_output') return `Tools said: ${outputs.join(', ')}`;
  return `Responses heard: ${lastUserText(json.input)}`;
}

function functionToCall(json: Json): string | undefined {
  const tools = Array.isArray(json.tools) ? (json.tools as Json[]) : [];
  const first = tools.find((tool) => tool.type === 'function');
  if (!first) return undefined;
  const input = Array.isArray(json.input) ? (json.input as Json[]) : [];
  return input.at(-1)?.type === 'function_call_output' ? undefined : String(first.name);
}

let counter = 0;

function responseObject(json: Json, id: string, status: string, output: unknown[], usage: unknown): Json {
  return {
    id,
    object: 'response',
    created_at: 1741476542,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: json.instructions ?? null,
    max_output_tokens: json.max_output_tokens ?? null,
    model: json.model,
    output,
    parallel_tool_calls: json.parallel_tool_calls ?? true,
    previous_response_id: json.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: json.store ?? true,
    temperature: json.temperature ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: json.tool_choice ?? 'auto',
    tools: json.tools ?? [],
    top_p: json.top_p ?? 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  };
}

/** A Responses answer (JSON, or the SSE event sequence with `stream: true`) for a valid request. */
export async function answerResponses(request: RecordedRequest, res: ServerResponse, stored?: ResponsesDouble['stored']): Promise<void> {
  const json = request.json;
  counter += 1;
  const id = `resp_double_${counter}`;
  const fn = functionToCall(json);
  const args = JSON.stringify({ city: 'Paris' });
  const item: Json = fn
    ? { id: `fc_double_${counter}`, type: 'function_call', status: 'completed', arguments: args, call_id: 'call_resp_01', name: fn }
    : { id: `msg_double_${counter}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: responsesReply(json) }] };
  if (json.store !== false && stored) {
    const input = (Array.isArray(json.input) ? json.input : [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: json.input }] }]) as unknown[];
    stored.set(id, { input, output: [item], response: responseObject(json, id, 'completed', [item], RESPONSES_USAGE) });
  }
  if (json.stream !== true) {
    sendJson(res, 200, responseObject(json, id, 'completed', [item], RESPONSES_USAGE), { 'x-request-id': 'req_resp' });
    return;
  }
  let sequence = 0;
  const events: { event: string; data: Json }[] = [];
  const push = (type: string, data: Json) => events.push({ event: type, data: { type, sequence_number: sequence++, ...data } });
  push('response.created', { response: responseObject(json, id, 'in_progress', [], null) });
  push('response.in_progress', { response: responseObject(json, id, 'in_progress', [], null) });
  if (fn) {
    push('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    push('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: args.slice(0, 6), obfuscation: 'x' });
    push('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: args.slice(6), obfuscation: 'y' });
    push('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: args });
  } else {
    const text = responsesReply(json);
    const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
    push('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    push('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part });
    text.split(' ').forEach((word, i) => push('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: (i ? ' ' : '') + word, logprobs: [], obfuscation: 'z' }));
    push('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text, logprobs: [] });
    push('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text } });
  }
  push('response.output_item.done', { output_index: 0, item });
  push('response.completed', { response: responseObject(json, id, 'completed', [item], RESPONSES_USAGE) });
  await writeSseEvents(res, events, { 'x-request-id': 'req_resp_stream' });
}

/**
 * `GET /v1/responses/{id}` (the response object), `GET …/input_items` (a list, newest first by default) and
 * `DELETE /v1/responses/{id}`, as OpenAI answers them; an unknown id is OpenAI's 404.
 */
function answerStored(request: RecordedRequest, res: ServerResponse, stored: ResponsesDouble['stored'], id: string, inputItems: boolean): void {
  if (!String(request.headers.authorization ?? '').startsWith('Bearer ')) {
    return sendOpenAIError(res, 401, problem("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", null), 'invalid_request_error');
  }
  const entry = stored.get(id);
  if (!entry) return sendOpenAIError(res, 404, problem(`Response with id '${id}' not found.`, null));
  if (request.method === 'DELETE') {
    if (inputItems) return sendOpenAIError(res, 404, problem(`Invalid URL (DELETE ${request.url})`, null));
    stored.delete(id);
    return sendJson(res, 200, { id, object: 'response', deleted: true });
  }
  if (!inputItems) return sendJson(res, 200, entry.response);
  const order = new URL(request.url, 'http://double').searchParams.get('order') ?? 'desc';
  const items = entry.input.map((item, i) => ({ id: `msg_input_${i}`, ...(item as Json) }));
  const data = order === 'asc' ? items : [...items].reverse();
  sendJson(res, 200, { object: 'list', data, first_id: (data[0] as Json | undefined)?.id ?? null, last_id: (data.at(-1) as Json | undefined)?.id ?? null, has_more: false });
}

export async function startResponsesDouble(): Promise<ResponsesDouble> {
  const stored: ResponsesDouble['stored'] = new Map();
  const behaviour: Behaviour = async (request, res) => {
    const path = request.url.split('?')[0];
    const byId = /^\/v1\/responses\/([^/]+)(\/input_items)?$/.exec(path);
    if (byId && (request.method === 'GET' || request.method === 'DELETE')) return answerStored(request, res, stored, byId[1], byId[2] !== undefined);
    if (request.method !== 'POST' || path !== '/v1/responses') return sendOpenAIError(res, 404, problem(`Invalid URL (${request.method} ${path})`, null));
    if (!String(request.headers.authorization ?? '').startsWith('Bearer ')) {
      return sendOpenAIError(res, 401, problem("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", null), 'invalid_request_error');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const invalid = responsesRequestProblem(parsed, stored);
    if (invalid) return sendOpenAIError(res, 400, invalid);
    await answerResponses(request, res, stored);
  };
  const server = await startRecordingServer(behaviour);
  return { ...server, baseUrl: `${server.origin}/v1`, stored };
}
