// A stand-in for Anthropic's Messages API in its real wire format: `POST /v1/messages` checked the way
// Anthropic checks it (x-api-key, anthropic-version, max_tokens, temperature 0–1), JSON `message`
// answers, typed SSE streams (`event:` names, pings, cumulative usage) and `{type:"error"}` bodies.
// The same answers serve Claude on Vertex (test/fakes/vertex.ts).
import type { ServerResponse } from 'node:http';
import { sendJson, startRecordingServer, writeSseEvents, type Behaviour, type RecordedRequest, type RecordingServer } from './recording-server.js';

export interface AnthropicFake extends RecordingServer {
  /** `http://127.0.0.1:PORT/v1`, as a custom host. */
  baseUrl: string;
}

export const FAKE_USAGE = { input_tokens: 11, cache_creation_input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 4 };

export function anthropicError(status: number, type: string, message: string): Behaviour {
  return (_request, res) => sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_fake_error' }, { 'request-id': 'req_fake_error' });
}

function lastUserText(json: Record<string, unknown>): string {
  const messages = Array.isArray(json.messages) ? (json.messages as { role: string; content: unknown }[]) : [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as { text?: string }[]).map((block) => block.text ?? '').join('');
}

/** What the fake "generates": the last user text echoed back, so tests can see the mapping end to end. */
export const claudeReply = (json: Record<string, unknown>): string => `Claude heard: ${lastUserText(json)}`;

/** The checks Anthropic makes of a Messages body; returns the error answer, or undefined when valid. */
export function invalidMessagesBody(json: Record<string, unknown>, modelInBody: boolean): string | undefined {
  if (modelInBody && typeof json.model !== 'string') return 'model: Field required';
  if (!modelInBody && 'model' in json) return 'model: Extra inputs are not permitted';
  if (typeof json.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(json.messages) || json.messages.length === 0) return 'messages: at least one message is required';
  if (typeof json.temperature === 'number' && (json.temperature < 0 || json.temperature > 1)) return 'temperature: range: 0..1';
  return undefined;
}

interface Block {
  type: string;
  content?: string;
}

/** With tools declared, the fake calls the first one, unless the last user turn brings the tool's result. */
function toolToCall(json: Record<string, unknown>): string | undefined {
  const tools = Array.isArray(json.tools) ? (json.tools as { name: string }[]) : [];
  if (!tools.length) return undefined;
  const messages = json.messages as { role: string; content: string | Block[] }[];
  const last = messages.at(-1)!;
  const bringsResult = Array.isArray(last.content) && last.content.some((block) => block.type === 'tool_result');
  return bringsResult ? undefined : tools[0].name;
}

/** The text answer to a turn that brings tool results: what the tools said. */
function toolResultReply(json: Record<string, unknown>): string | undefined {
  const last = (json.messages as { content: string | Block[] }[]).at(-1)!;
  if (!Array.isArray(last.content)) return undefined;
  const results = last.content.filter((block) => block.type === 'tool_result').map((block) => block.content);
  return results.length ? `Tools said: ${results.join(', ')}` : undefined;
}

const TOOL_INPUT = { city: 'Paris' };

async function answerWithToolUse(request: RecordedRequest, res: ServerResponse, model: string, tool: string): Promise<void> {
  const id = 'msg_fake_tool';
  const usage = { input_tokens: 20, output_tokens: 6 };
  if (request.json.stream === true) {
    const input = JSON.stringify(TOOL_INPUT);
    await writeSseEvents(res, [
      { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1 } } } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check.' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_fake_01', name: tool, input: {} } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: input.slice(0, 5) } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: input.slice(5) } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 6 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
    return;
  }
  sendJson(res, 200, { id, type: 'message', role: 'assistant', model, content: [{ type: 'tool_use', id: 'toolu_fake_01', name: tool, input: TOOL_INPUT }], stop_reason: 'tool_use', stop_sequence: null, usage });
}

/** A Messages answer (JSON or typed SSE stream) for a valid request. */
export async function answerMessages(request: RecordedRequest, res: ServerResponse, model: string): Promise<void> {
  const tool = toolToCall(request.json);
  if (tool) return answerWithToolUse(request, res, model, tool);
  const text = toolResultReply(request.json) ?? claudeReply(request.json);
  const id = 'msg_fake_01';
  if (request.json.stream === true) {
    const words = text.split(' ');
    await writeSseEvents(
      res,
      [
        { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, cache_creation_input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'ping', data: { type: 'ping' } },
        ...words.map((word, i) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: (i ? ' ' : '') + word } } })),
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
      { 'request-id': 'req_fake_stream' },
    );
    return;
  }
  sendJson(
    res,
    200,
    { id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: FAKE_USAGE },
    { 'request-id': 'req_fake' },
  );
}

const defaultAnswer: Behaviour = async (request, res) => {
  if (request.url !== '/v1/messages') return anthropicError(404, 'not_found_error', `Not found: ${request.url}`)(request, res);
  if (!request.headers['x-api-key']) return anthropicError(401, 'authentication_error', 'x-api-key header is required')(request, res);
  if (!request.headers['anthropic-version']) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')(request, res);
  const invalid = invalidMessagesBody(request.json, true);
  if (invalid) return anthropicError(400, 'invalid_request_error', invalid)(request, res);
  await answerMessages(request, res, String(request.json.model));
};

/** A stream that starts well and then reports an error event, as Anthropic does when overloaded mid-answer. */
export const streamThenOverloaded: Behaviour = (request, res) =>
  writeSseEvents(res, [
    { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_fake_02', type: 'message', role: 'assistant', content: [], model: request.json.model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial' } } },
    { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
  ]);

export async function startAnthropicFake(): Promise<AnthropicFake> {
  const server = await startRecordingServer(defaultAnswer);
  return { ...server, baseUrl: `${server.origin}/v1` };
}
