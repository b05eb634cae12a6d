// Anthropic's Messages API format, shared by `anthropic` and Claude models on `vertex-ai`: the request
// body, the answer, the typed SSE stream and the error body, each mapped to or from OpenAI's shape.
import { COMPLETION_BOUNDS } from '../spec-bounds.js';
import { errorTypeForStatus, unsupportedField } from '../errors.js';
import type { ChatRequest } from '../validate.js';
import { includeUsage, refuseUnsupportedFields, requireUserFirst, stopSequences, topK } from './conversation.js';
import { conversationWithTools, readToolRequest, type OpenAIToolCall, type ToolRequest, type ToolTurn } from './chat-tools.js';
import {
  asNumber,
  asRecord,
  asString,
  buildAnswer,
  buildChunk,
  buildUsageChunk,
  nowInSeconds,
  usageOf,
  type AnswerIdentity,
  type FinishReason,
  type OpenAIUsage,
} from './openai-shape.js';
import { ProviderStreamError, type MappedProviderError, type ProviderCall, type StreamTranslator, type UpstreamEvent } from './types.js';

/**
 * OpenAI's chat API has no token limit by default, but Messages requires `max_tokens`. 4096 is the
 * largest output every current Claude model accepts (the older Haiku models stop there), so a chat
 * that names no limit is only cut where the model itself would have to stop.
 */
export const DEFAULT_CHAT_MAX_TOKENS = 4096;

/** Messages takes a temperature of 0 to 1; OpenAI's 0 to 2 cannot be squeezed in without changing its meaning. */
const MAX_TEMPERATURE = 1;

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

type AnthropicContent = string | ContentBlock[];

interface MessagesTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

type MessagesToolChoice = { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export interface MessagesBody {
  model?: string;
  anthropic_version?: string;
  max_tokens: number;
  messages: { role: 'user' | 'assistant'; content: AnthropicContent }[];
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
  system?: string;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id: string };
  stream?: boolean;
}

/** Fields Messages can honour beyond the common ones: `user` becomes `metadata.user_id`. */
const MESSAGES_FIELDS: ReadonlySet<string> = new Set(['user', 'top_k']);
/** Chat adds function calling: OpenAI tools become Messages tools. */
const MESSAGES_CHAT_FIELDS: ReadonlySet<string> = new Set([...MESSAGES_FIELDS, 'tools', 'tool_choice', 'parallel_tool_calls']);

function blockOf(part: ToolTurn['parts'][number]): ContentBlock {
  switch (part.kind) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return {
        type: 'image',
        source: part.source.kind === 'base64' ? { type: 'base64', media_type: part.source.mediaType, data: part.source.data } : { type: 'url', url: part.source.url },
      };
    case 'tool_call':
      return { type: 'tool_use', id: part.id, name: part.name, input: part.arguments };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: part.callId, content: part.text };
  }
}

/**
 * Messages refuses a final assistant turn (a prefill) whose text ends in whitespace; the whitespace is
 * cut there, and only there.
 */
function withoutTrailingWhitespace(turns: ToolTurn[]): ToolTurn[] {
  const last = turns.at(-1);
  const lastPart = last?.parts.at(-1);
  if (last?.role !== 'assistant' || lastPart?.kind !== 'text') return turns;
  return [...turns.slice(0, -1), { ...last, parts: [...last.parts.slice(0, -1), { kind: 'text', text: lastPart.text.trimEnd() }] }];
}

/** A single text stays a plain string, as a client of Messages would write it; anything else is blocks. */
function contentOf(turn: ToolTurn): AnthropicContent {
  const [first] = turn.parts;
  return turn.parts.length === 1 && first.kind === 'text' ? first.text : turn.parts.map(blockOf);
}

function messagesTools(request: ToolRequest): Pick<MessagesBody, 'tools' | 'tool_choice'> {
  const tools = request.tools.map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), input_schema: tool.parameters }));
  const parallel = request.parallel ? {} : { disable_parallel_tool_use: true };
  const choice = request.choice;
  let toolChoice: MessagesToolChoice | undefined;
  if (choice?.mode === 'function') toolChoice = { type: 'tool', name: choice.name, ...parallel };
  else if (choice?.mode === 'required') toolChoice = { type: 'any', ...parallel };
  else if (choice?.mode === 'none') toolChoice = { type: 'none' };
  else if (choice?.mode === 'auto' || !request.parallel) toolChoice = { type: 'auto', ...parallel };
  return { tools, ...(toolChoice ? { tool_choice: toolChoice } : {}) };
}

/** The Messages request body for a completion or chat call (with `model`; Vertex moves it to the URL). */
export function buildMessagesBody(call: ProviderCall, provider: string): MessagesBody {
  const body = call.body;
  refuseUnsupportedFields(body, provider, call.endpoint === 'chat' ? MESSAGES_CHAT_FIELDS : MESSAGES_FIELDS, call.endpoint);
  if (body.temperature != null && body.temperature > MAX_TEMPERATURE) {
    throw unsupportedField('temperature', provider, `above ${MAX_TEMPERATURE} is not supported (the provider accepts 0 to 1)`);
  }
  const conversation = conversationWithTools(call, provider);
  requireUserFirst(conversation.turns, provider);
  const tools = call.endpoint === 'chat' ? readToolRequest(body as ChatRequest, provider) : undefined;
  const requested = call.endpoint === 'chat' ? ((body as ChatRequest).max_completion_tokens ?? body.max_tokens) : body.max_tokens;
  const defaultMaxTokens = call.endpoint === 'chat' ? DEFAULT_CHAT_MAX_TOKENS : COMPLETION_BOUNDS.max_tokens.default;
  const stop = stopSequences(body.stop);
  const k = topK(body);
  return {
    model: body.model,
    max_tokens: requested ?? defaultMaxTokens,
    messages: withoutTrailingWhitespace(conversation.turns).map((turn) => ({ role: turn.role, content: contentOf(turn) })),
    ...(tools ? messagesTools(tools) : {}),
    ...(conversation.system.length ? { system: conversation.system.join('\n\n') } : {}),
    ...(stop ? { stop_sequences: stop } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { top_p: body.top_p } : {}),
    ...(k !== undefined ? { top_k: k } : {}),
    ...(body.user !== undefined ? { metadata: { user_id: body.user } } : {}),
    ...(call.stream ? { stream: true } : {}),
  };
}

export function mapStopReason(stopReason: unknown): FinishReason | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    // end_turn, stop_sequence, pause_turn (a server tool paused the turn) and anything newer.
    default:
      return 'stop';
  }
}

interface MessagesUsage {
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
}

function readUsage(value: unknown, into: MessagesUsage = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 }): MessagesUsage {
  const usage = asRecord(value);
  // Stream events carry cumulative counts, and a later event may leave out what an earlier one gave.
  if (typeof usage.input_tokens === 'number') into.input = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') into.output = usage.output_tokens;
  if (typeof usage.cache_creation_input_tokens === 'number') into.cacheCreation = usage.cache_creation_input_tokens;
  if (typeof usage.cache_read_input_tokens === 'number') into.cacheRead = usage.cache_read_input_tokens;
  return into;
}

/** `input_tokens` leaves out cached tokens; OpenAI's `prompt_tokens` counts every prompt token. */
export function toOpenAIUsage(usage: MessagesUsage): OpenAIUsage {
  return usageOf(usage.input + usage.cacheCreation + usage.cacheRead, usage.output, usage.cacheRead);
}

function identityOf(message: Record<string, unknown>, call: ProviderCall): AnswerIdentity {
  return { id: asString(message.id) ?? `msg-${Date.now()}`, created: nowInSeconds(), model: asString(message.model) ?? call.body.model };
}

/** A Messages answer as `text_completion` / `chat.completion`: text blocks joined, stop reason and usage mapped. */
export function mapMessagesResponse(call: ProviderCall, json: unknown): object {
  const message = asRecord(json);
  const blocks = Array.isArray(message.content) ? message.content : [];
  const records = blocks.map(asRecord);
  const text = records
    .filter((block) => block.type === 'text')
    .map((block) => asString(block.text) ?? '')
    .join('');
  const toolCalls = records
    .filter((block) => block.type === 'tool_use')
    .map((block): OpenAIToolCall => ({ id: asString(block.id) ?? '', type: 'function', function: { name: asString(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) } }));
  return buildAnswer(call.endpoint, identityOf(message, call), text, mapStopReason(message.stop_reason), toOpenAIUsage(readUsage(message.usage)), null, toolCalls);
}

const CONTRACT_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'api_error']);

/** Anthropic error types that are not the contract's (overloaded_error, request_too_large ...) read as api_error. */
function contractErrorType(anthropicType: string | undefined): string {
  return anthropicType && CONTRACT_ERROR_TYPES.has(anthropicType) ? anthropicType : 'api_error';
}

/** Reads Messages SSE events (message_start … message_stop) into OpenAI chunks as each arrives. */
export function createMessagesStreamTranslator(call: ProviderCall): StreamTranslator {
  const withUsage = includeUsage(call);
  let identity: AnswerIdentity = { id: `msg-${Date.now()}`, created: nowInSeconds(), model: call.body.model };
  const usage: MessagesUsage = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
  let stopped = false;
  /** Content block index → position among the tool calls, which OpenAI numbers from 0. */
  const toolCallIndex = new Map<number, number>();
  const chunk = (text: string | undefined, finishReason: FinishReason | null, withRole = false) =>
    buildChunk(call.endpoint, identity, { text, finishReason, withRole }, withUsage);
  const toolCallChunk = (toolCall: object) => buildChunk(call.endpoint, identity, { toolCalls: [toolCall] }, withUsage);

  return {
    framing: 'sse',
    onEvent(event: UpstreamEvent): object[] {
      if (event.kind !== 'sse') return [];
      let data: Record<string, unknown>;
      try {
        data = asRecord(JSON.parse(event.data));
      } catch {
        throw new ProviderStreamError(`The provider sent a stream event that is not JSON: ${event.data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
      }
      switch (data.type ?? event.event) {
        case 'message_start': {
          const message = asRecord(data.message);
          identity = identityOf(message, call);
          readUsage(message.usage, usage);
          // OpenAI's first chat chunk names the role; a text completion has nothing to say yet.
          return call.endpoint === 'chat' ? [chunk('', null, true)] : [];
        }
        case 'content_block_start': {
          const block = asRecord(data.content_block);
          if (block.type !== 'tool_use' || call.endpoint !== 'chat') return [];
          const index = toolCallIndex.size;
          toolCallIndex.set(asNumber(data.index), index);
          return [toolCallChunk({ index, id: asString(block.id) ?? '', type: 'function', function: { name: asString(block.name) ?? '', arguments: '' } })];
        }
        case 'content_block_delta': {
          const delta = asRecord(data.delta);
          if (delta.type === 'text_delta' && typeof delta.text === 'string') return [chunk(delta.text, null)];
          const index = toolCallIndex.get(asNumber(data.index));
          if (delta.type === 'input_json_delta' && index !== undefined) {
            return [toolCallChunk({ index, function: { arguments: asString(delta.partial_json) ?? '' } })];
          }
          // Thinking and signature deltas have no place in an OpenAI answer.
          return [];
        }
        case 'message_delta': {
          readUsage(data.usage, usage);
          const finishReason = mapStopReason(asRecord(data.delta).stop_reason);
          return finishReason ? [chunk(call.endpoint === 'chat' ? undefined : '', finishReason)] : [];
        }
        case 'message_stop':
          stopped = true;
          return withUsage ? [buildUsageChunk(call.endpoint, identity, toOpenAIUsage(usage))] : [];
        case 'error': {
          const error = asRecord(data.error);
          const type = asString(error.type);
          throw new ProviderStreamError(asString(error.message) ?? 'The provider reported an error in the stream', contractErrorType(type), type ?? null);
        }
        // ping, content_block_stop and event types added later.
        default:
          return [];
      }
    },
    onEnd(): object[] {
      if (!stopped) throw new ProviderStreamError('The provider stream ended before message_stop', 'api_error', 'stream_incomplete');
      return [];
    },
    usage: () => (stopped ? toOpenAIUsage(usage) : undefined),
  };
}

/** `{type:"error", error:{type, message}}` → the contract's fields; `code` keeps Anthropic's error type. */
export function mapMessagesError(status: number, body: string): MappedProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.trim().slice(0, 2000) || `Provider answered with status ${status}`, type: errorTypeForStatus(status), code: null };
  }
  const error = asRecord(asRecord(parsed).error);
  return {
    message: asString(error.message) ?? asString(asRecord(parsed).message) ?? `Provider answered with status ${status}`,
    type: errorTypeForStatus(status),
    code: asString(error.type) ?? null,
  };
}
