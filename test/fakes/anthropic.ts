// A stand-in for Anthropic's Messages API in its real wire format: `POST /v1/messages` checked the way
// Anthropic checks it (x-api-key, anthropic-version, and the body rules of `anthropicRequestProblem`), JSON `message`
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

// ---- The checks Anthropic makes of a Messages body (pure, usable without a server) ------------------

/** Block types the Messages API accepts inside `messages[].content`. */
export const ANTHROPIC_BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'advisor_tool_result',
] as const;

/** Output-token ceilings by model family (Anthropic's model overview); first match wins. */
const OUTPUT_LIMITS: [RegExp, number][] = [
  [/claude-3-(haiku|opus|sonnet)/, 4096],
  [/claude-3-5-(sonnet|haiku)/, 8192],
  [/claude-3-7-sonnet/, 64000],
  [/claude-opus-4-[6-9]/, 128000],
  [/claude-opus-4-5/, 64000],
  [/claude-opus-4/, 32000],
  [/claude-(sonnet|haiku)-4/, 64000],
];
/** Models the table does not know (test names, newer families): what Claude Code asks for at most. */
export const DEFAULT_OUTPUT_LIMIT = 128000;

export function anthropicOutputLimit(model: string): number {
  return OUTPUT_LIMITS.find(([pattern]) => pattern.test(model))?.[1] ?? DEFAULT_OUTPUT_LIMIT;
}

/** `anthropic-version` values the API answers: the two dated releases, and the newer date-shaped ones the SDK 1.x sends. */
export function isKnownAnthropicVersion(version: string): boolean {
  if (version === '2023-06-01' || version === '2023-01-01') return true;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(version);
  if (!match) return false;
  const date = new Date(`${version}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(version) && Number(match[1]) >= 2026;
}

export interface AnthropicCheckOptions {
  /** True (the default) for api.anthropic.com; false for Claude on Vertex / Bedrock invoke, where the model is in the URL. */
  modelInBody?: boolean;
  /** The `anthropic-version` header as sent; checked when given. */
  anthropicVersion?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

interface Turn {
  role: string;
  /** Blocks of the merged turn, each with where it came from. */
  blocks: { block: Json; at: string }[];
  /** Index of the turn's first message. */
  index: number;
}

function textBlockProblem(block: Json, where: string): string | undefined {
  if (typeof block.text !== 'string') return `${where}.text: Field required`;
  if (block.text === '') return `${where.split('.')[0]}: text content blocks must be non-empty`;
  if (block.text.trim() === '') return `${where.split('.')[0]}: text content blocks must contain non-whitespace text`;
  return undefined;
}

/**
 * The checks the Messages API makes of a request body, in its own words. Returns the message of the 400
 * `invalid_request_error`, or undefined when the real API would accept the body.
 */
export function anthropicRequestProblem(json: unknown, options: AnthropicCheckOptions = {}): string | undefined {
  const modelInBody = options.modelInBody ?? true;
  if (options.anthropicVersion !== undefined && !isKnownAnthropicVersion(options.anthropicVersion)) {
    return `anthropic-version: invalid version '${options.anthropicVersion}'. Valid versions are 2023-06-01 and 2023-01-01.`;
  }
  if (!isObject(json)) return 'Input should be a valid dictionary';
  if (modelInBody && (typeof json.model !== 'string' || json.model === '')) return 'model: Field required';
  if (!modelInBody && 'model' in json) return 'model: Extra inputs are not permitted';

  if (!('max_tokens' in json)) return 'max_tokens: Field required';
  const maxTokens = json.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens)) return 'max_tokens: Input should be a valid integer';
  if (maxTokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  const model = typeof json.model === 'string' ? json.model : '';
  const limit = anthropicOutputLimit(model);
  if (maxTokens > limit) return `max_tokens: ${maxTokens} > ${limit}, which is the maximum allowed number of output tokens for ${model || 'this model'}`;

  if ('temperature' in json) {
    if (typeof json.temperature !== 'number') return 'temperature: Input should be a valid number';
    if (json.temperature < 0) return 'temperature: Input should be greater than or equal to 0';
    if (json.temperature > 1) return 'temperature: Input should be less than or equal to 1';
  }

  if ('system' in json && json.system !== undefined) {
    if (Array.isArray(json.system)) {
      for (const [j, block] of json.system.entries()) {
        if (!isObject(block) || block.type !== 'text') return `system.${j}.type: Input should be 'text'`;
        const problem = textBlockProblem(block, `system.${j}`);
        if (problem) return problem;
      }
    } else if (typeof json.system !== 'string') return 'system: Input should be a valid string or a list of text blocks';
  }

  if (!('messages' in json)) return 'messages: Field required';
  if (!Array.isArray(json.messages)) return 'messages: Input should be a valid list';
  const messages = json.messages as unknown[];
  if (messages.length === 0) return 'messages: at least one message is required';

  // Structure: system-role messages (Claude Code sends them mid-conversation) stand outside the
  // user/assistant turns; consecutive same-role messages are merged into one turn, as the API does.
  const turns: Turn[] = [];
  let lastConversational = -1;
  messages.forEach((message, i) => {
    if (isObject(message) && message.role !== 'system') lastConversational = i;
  });
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary`;
    const role = message.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const content = message.content;
    const finalAssistant = role === 'assistant' && i === lastConversational;
    if (content === undefined) return `messages.${i}.content: Field required`;
    if (typeof content !== 'string' && !Array.isArray(content)) return `messages.${i}.content: Input should be a valid string or a list of content blocks`;
    if (content.length === 0) {
      if (finalAssistant) continue;
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (finalAssistant) {
      const last = typeof content === 'string' ? content : (content.at(-1) as { type?: unknown; text?: unknown } | undefined);
      const text = typeof last === 'string' ? last : last?.type === 'text' && typeof last.text === 'string' ? last.text : undefined;
      if (text !== undefined && /\S/.test(text) && /\s$/.test(text)) return 'messages: final assistant content cannot end with trailing whitespace';
    }
    const blocks: { block: Json; at: string }[] = [];
    if (typeof content === 'string') {
      // A string is one text block, held to the same rule.
      if (content.trim() === '' && !finalAssistant) return 'messages: text content blocks must contain non-whitespace text';
      blocks.push({ block: { type: 'text', text: content }, at: `messages.${i}.content` });
    } else {
      for (const [j, block] of content.entries()) {
        const at = `messages.${i}.content.${j}`;
        if (!isObject(block)) return `${at}: Input should be a valid dictionary`;
        if (typeof block.type !== 'string' || !(ANTHROPIC_BLOCK_TYPES as readonly string[]).includes(block.type)) {
          return `${at}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags: ${ANTHROPIC_BLOCK_TYPES.map((type) => `'${type}'`).join(', ')}`;
        }
        if (block.type === 'text') {
          const problem = textBlockProblem(block, at);
          if (problem) return problem;
        }
        if (block.type === 'tool_use' && (typeof block.id !== 'string' || typeof block.name !== 'string' || !isObject(block.input))) return `${at}: tool_use blocks need an id, a name and an input object`;
        if (block.type === 'tool_result' && typeof block.tool_use_id !== 'string') return `${at}.tool_use_id: Field required`;
        if ((block.type === 'tool_use' || block.type === 'tool_result') && role !== (block.type === 'tool_use' ? 'assistant' : 'user')) {
          return `${at}: \`${block.type}\` blocks can only be in \`${block.type === 'tool_use' ? 'assistant' : 'user'}\` messages`;
        }
        blocks.push({ block, at });
      }
    }
    if (role === 'system') continue;
    const previous = turns.at(-1);
    if (previous && previous.role === role) previous.blocks.push(...blocks);
    else turns.push({ role, blocks, index: i });
  }
  if (turns.length === 0) return 'messages: at least one message is required';
  if (turns[0].role !== 'user') return 'messages: first message must use the "user" role';

  for (const [t, turn] of turns.entries()) {
    const before = turns[t - 1];
    const toolUseIds = before?.role === 'assistant' ? before.blocks.filter(({ block }) => block.type === 'tool_use').map(({ block }) => String(block.id)) : [];
    if (turn.role === 'user') {
      let seenOther = false;
      for (const { block, at } of turn.blocks) {
        if (block.type !== 'tool_result') {
          seenOther = true;
          continue;
        }
        if (!toolUseIds.includes(String(block.tool_use_id))) {
          return `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        if (seenOther) {
          return `messages.${turn.index}: Did not find ${toolUseIds.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`;
        }
      }
      const answered = new Set(turn.blocks.filter(({ block }) => block.type === 'tool_result').map(({ block }) => String(block.tool_use_id)));
      const unanswered = toolUseIds.filter((id) => !answered.has(id));
      if (unanswered.length) {
        return `messages.${before.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
  }
  return undefined;
}

/** The older name: the same checks, without the header. */
export function invalidMessagesBody(json: Record<string, unknown>, modelInBody: boolean): string | undefined {
  return anthropicRequestProblem(json, { modelInBody });
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

/** What the double answers when nothing is queued: a checked request, a Messages answer. */
export const defaultAnswer: Behaviour = async (request, res) => {
  if (request.url !== '/v1/messages') return anthropicError(404, 'not_found_error', `Not found: ${request.url}`)(request, res);
  if (!request.headers['x-api-key']) return anthropicError(401, 'authentication_error', 'x-api-key header is required')(request, res);
  const version = request.headers['anthropic-version'];
  if (typeof version !== 'string' || !version) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')(request, res);
  const invalid = anthropicRequestProblem(request.json, { modelInBody: true, anthropicVersion: version });
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
