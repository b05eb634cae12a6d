// Scripted answers for the dialect tests, enqueued on the strict provider doubles of test/fakes/ for what
// their default answers do not cover: an OpenAI-format tool call (and the turn that brings its result),
// Bedrock's toolUse, Anthropic's count_tokens. Each first makes the checks the real API makes of that
// request, and refuses in the provider's own error shape what the real one refuses.
import type { ServerResponse } from 'node:http';
import { sendJson, type Behaviour, type RecordedRequest } from '../fakes/recording-server.js';
import { anthropicError, anthropicRequestProblem } from '../fakes/anthropic.js';
import { openaiChatProblem } from '../fakes/openai.js';
import { bedrockError, converseRequestProblem, eventFrame, type BedrockBehaviour } from '../fakes/bedrock.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export const TOOL_ARGUMENTS = { city: 'Paris' };

function openaiError(res: ServerResponse, status: number, message: string, param: string | null, code: string | null = null): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });
}

/**
 * The tool-call rules of Chat Completions that `openaiChatProblem` does not make: flat `{type:"function",
 * function:{name}}` tools, `tool` messages answering a preceding assistant's `tool_calls` by id, and every
 * call answered before the conversation goes on. OpenAI's own messages and params.
 */
export function chatToolProblem(json: Json): { message: string; param: string } | undefined {
  const tools = json.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return { message: "Invalid type for 'tools': expected an array of objects.", param: 'tools' };
    for (const [i, tool] of tools.entries()) {
      if (!isObject(tool) || tool.type !== 'function') return { message: `Invalid value for 'tools[${i}].type'.`, param: `tools[${i}].type` };
      if (!isObject(tool.function)) return { message: `Missing required parameter: 'tools[${i}].function'.`, param: `tools[${i}].function` };
      if (typeof tool.function.name !== 'string') return { message: `Missing required parameter: 'tools[${i}].function.name'.`, param: `tools[${i}].function.name` };
    }
  }
  const messages = json.messages as Json[];
  let open: string[] = [];
  let openAt = -1;
  for (const [i, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string') return { message: `Missing required parameter: 'messages[${i}].tool_call_id'.`, param: `messages.[${i}].tool_call_id` };
      if (!open.includes(message.tool_call_id)) {
        return { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: `messages.[${i}].role` };
      }
      open = open.filter((id) => id !== message.tool_call_id);
      continue;
    }
    if (open.length) {
      return {
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
        param: `messages.[${openAt}].role`,
      };
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      open = (message.tool_calls as Json[]).map((call) => String(call.id));
      openAt = i;
      for (const [j, call] of (message.tool_calls as Json[]).entries()) {
        const fn = call.function as Json | undefined;
        if (call.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
          return { message: `Invalid 'messages[${i}].tool_calls[${j}]': expected {id, type:"function", function:{name, arguments}}.`, param: `messages.[${i}].tool_calls.[${j}]` };
        }
      }
    }
  }
  if (open.length) {
    return {
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
      param: `messages.[${openAt}].role`,
    };
  }
  return undefined;
}

const CHAT_USAGE = { prompt_tokens: 17, completion_tokens: 9, total_tokens: 26, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 0 } };

/**
 * A Chat Completions turn with tools: with tools declared and no tool result last, a call of the first
 * tool (id `call_chat_01`, arguments `{"city":"Paris"}`); with a tool result last, "Tools said: …".
 * Streams as OpenAI does (tool_calls deltas by index, `finish_reason: "tool_calls"`, `[DONE]`).
 */
export const chatToolTurn: Behaviour = async (request, res) => {
  const path = request.url.split('?')[0];
  if (request.method !== 'POST' || !path.endsWith('/chat/completions')) return openaiError(res, 404, `Invalid URL (${request.method} ${path})`, null);
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const invalid = openaiChatProblem(parsed);
  if (invalid) return openaiError(res, 400, invalid.message, invalid.param, invalid.code);
  const json = parsed as Json;
  const toolProblem = chatToolProblem(json);
  if (toolProblem) return openaiError(res, 400, toolProblem.message, toolProblem.param);
  const messages = json.messages as Json[];
  const tools = (json.tools as { function: { name: string } }[] | undefined) ?? [];
  const last = messages.at(-1)!;
  const callTool = tools.length > 0 && last.role !== 'tool' ? tools[0].function.name : undefined;
  const results = messages.filter((message) => message.role === 'tool').map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const text = last.role === 'tool' ? `Tools said: ${results.join(', ')}` : `Chat heard: ${typeof lastUser?.content === 'string' ? lastUser.content : JSON.stringify(lastUser?.content)}`;
  const args = JSON.stringify(TOOL_ARGUMENTS);
  const base = { id: 'chatcmpl-tools', created: 1700000000, model: json.model, system_fingerprint: 'fp_fake' };
  if (json.stream === true) {
    const chunk = (delta: Json, finish: string | null) => ({ data: { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
    const events = callTool
      ? [
          chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_chat_01', type: 'function', function: { name: callTool, arguments: '' } }], refusal: null }, null),
          chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 4) } }] }, null),
          chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(4) } }] }, null),
          chunk({}, 'tool_calls'),
        ]
      : [chunk({ role: 'assistant', content: '', refusal: null }, null), ...text.split(' ').map((word, i) => chunk({ content: (i ? ' ' : '') + word }, null)), chunk({}, 'stop')];
    const includeUsage = isObject(json.stream_options) && json.stream_options.include_usage === true;
    if (includeUsage) events.push({ data: { ...base, object: 'chat.completion.chunk', choices: [], usage: CHAT_USAGE } as never });
    events.push({ data: '[DONE]' as never });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    for (const event of events) {
      res.write(`data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
    return;
  }
  const message = callTool
    ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_chat_01', type: 'function', function: { name: callTool, arguments: args } }] }
    : { role: 'assistant', content: text, refusal: null };
  sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason: callTool ? 'tool_calls' : 'stop' }], usage: CHAT_USAGE });
};

/**
 * Bedrock Converse with tools: a `toolUse` of the first tool in `toolConfig` (id `tooluse_bedrock_01`), or
 * with a toolResult last, the text of the results. JSON or binary event-stream, as the operation asks.
 */
export const bedrockToolTurn: BedrockBehaviour = (request, res) => {
  const problem = converseRequestProblem(request.json);
  if (problem) return void bedrockError(400, 'ValidationException', problem)(request, res);
  const json = request.json;
  const tools = ((json.toolConfig as Json | undefined)?.tools as { toolSpec?: { name: string } }[] | undefined) ?? [];
  const messages = json.messages as { role: string; content: Json[] }[];
  const last = messages.at(-1)!;
  const results = last.content.filter((block) => isObject(block.toolResult)).map((block) => {
    const content = ((block.toolResult as Json).content as Json[] | undefined) ?? [];
    return content.map((part) => (typeof part.text === 'string' ? part.text : JSON.stringify(part.json))).join('');
  });
  const toolName = !results.length ? tools.find((tool) => tool.toolSpec)?.toolSpec?.name : undefined;
  const usage = { inputTokens: 13, outputTokens: 6, totalTokens: 19 };
  const stream = request.operation === 'converse-stream';
  if (toolName) {
    if (stream) {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(eventFrame('messageStart', { role: 'assistant' }));
      res.write(eventFrame('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_bedrock_01', name: toolName } } }));
      res.write(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: JSON.stringify(TOOL_ARGUMENTS) } } }));
      res.write(eventFrame('contentBlockStop', { contentBlockIndex: 0 }));
      res.write(eventFrame('messageStop', { stopReason: 'tool_use' }));
      res.end(eventFrame('metadata', { usage, metrics: { latencyMs: 3 } }));
      return;
    }
    sendJson(res, 200, { output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_bedrock_01', name: toolName, input: TOOL_ARGUMENTS } }] } }, stopReason: 'tool_use', usage, metrics: { latencyMs: 3 } });
    return;
  }
  const text = results.length ? `Tools said: ${results.join(', ')}` : 'bedrock says hello';
  if (stream) {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    res.write(eventFrame('messageStart', { role: 'assistant' }));
    res.write(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }));
    res.write(eventFrame('contentBlockStop', { contentBlockIndex: 0 }));
    res.write(eventFrame('messageStop', { stopReason: 'end_turn' }));
    res.end(eventFrame('metadata', { usage, metrics: { latencyMs: 3 } }));
    return;
  }
  sendJson(res, 200, { output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage, metrics: { latencyMs: 3 } });
};

/**
 * Anthropic's `POST /v1/messages/count_tokens`: the Messages checks (without `max_tokens`, which, like
 * `stream`, the count refuses), then `{"input_tokens": N}` with N = `tokens`.
 */
export function anthropicCountTokens(tokens: number): Behaviour {
  return (request: RecordedRequest, res) => {
    if (request.url !== '/v1/messages/count_tokens') return anthropicError(404, 'not_found_error', `Not found: ${request.url}`)(request, res);
    if (!request.headers['x-api-key']) return anthropicError(401, 'authentication_error', 'x-api-key header is required')(request, res);
    const version = request.headers['anthropic-version'];
    if (typeof version !== 'string' || !version) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')(request, res);
    for (const extra of ['max_tokens', 'stream']) {
      if (extra in request.json) return anthropicError(400, 'invalid_request_error', `${extra}: Extra inputs are not permitted`)(request, res);
    }
    const invalid = anthropicRequestProblem({ ...request.json, max_tokens: 1 }, { anthropicVersion: version });
    if (invalid) return anthropicError(400, 'invalid_request_error', invalid)(request, res);
    sendJson(res, 200, { input_tokens: tokens });
  };
}
