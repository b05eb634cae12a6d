// The one place where dialects meet: a typed request and a typed event stream that every codec reads or
// writes. N client dialects and M provider wire formats need N + M codecs through this, not N × M
// translators. Usage, finish reasons and folding a stream into a whole answer live here once.
import { invalidRequest, unsupportedField, type GatewayError } from '../core/errors.js';
import { isPlainObject } from '../core/plain-object.js';

/** What a client speaks at the front door. */
export type Dialect = 'openai-chat' | 'openai-completions' | 'openai-responses' | 'anthropic-messages' | 'gemini';

/** What a provider speaks upstream. The OpenAI ones, Messages and Gemini are both dialects and provider formats. */
export type WireFormat = Dialect | 'bedrock-converse';

export type ImageSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

/** What a tool call's result holds: text, or text and images (Messages and Responses allow both). */
export type ToolResultContent = string | (TextPart | ImagePart)[];

export interface TextPart {
  type: 'text';
  text: string;
  /** Anthropic's prompt-caching marker, kept for a Messages hop and dropped elsewhere. */
  cacheControl?: Record<string, unknown>;
}

export interface ImagePart {
  type: 'image';
  source: ImageSource;
}

export interface ToolCallPart {
  type: 'tool_call';
  /** Kept across the trip: a result names its call by this id. */
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: string;
}

export interface ToolResultPart {
  type: 'tool_result';
  callId: string;
  /** The called tool's name when the dialect says it (Gemini needs it; Chat's tool messages don't carry it). */
  name?: string;
  content: ToolResultContent;
  isError?: boolean;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic's thinking signature, or an opaque encrypted reasoning blob (Responses, redacted thinking). */
  signature?: string;
  encrypted?: string;
}

export type ContentPart = TextPart | ImagePart | ToolCallPart | ToolResultPart | ReasoningPart;

export interface Turn {
  /** `system` here is a system message in the middle of the conversation (Claude Code, Responses' developer items). */
  role: 'user' | 'assistant' | 'system';
  parts: ContentPart[];
  /** Where the turn came from in the client's body, e.g. `messages[3]`, for errors. */
  source?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  strict?: boolean;
  /**
   * A tool of a Responses `namespace` (Codex's MCP tools), flattened for formats without namespaces: `name`
   * is then `<namespace>__<tool>`, and this keeps the two parts so the answer can name the call as the
   * client declared it (`function_call` with `namespace` and `name`).
   */
  namespace?: { namespace: string; name: string; description?: string };
}

export type ToolChoice = { mode: 'auto' } | { mode: 'none' } | { mode: 'required' } | { mode: 'tool'; name: string };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface TokenLogprob {
  token: string;
  logprob: number;
  /** The most likely alternatives at this position, when asked for. */
  top?: { token: string; logprob: number }[];
}

export interface CanonicalRequest {
  /** The client's dialect: names fields in errors and in the log's "dropped" list. */
  dialect: Dialect;
  /**
   * What an encoder does with a field its format cannot honour. `refuse`: a 400 naming the field and the
   * provider (the OpenAI dialects' contract, spec §7). `drop`: leave it out and list it in `dropped`
   * (what Claude Code and Codex need: their bodies change every release). Either way, what would change
   * the answer's meaning (an image the target cannot see) is refused.
   */
  onUnsupported: 'refuse' | 'drop';
  model: string;
  /** Leading system / developer text, in order. */
  system: TextPart[];
  turns: Turn[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** false: at most one tool call per turn. Absent: the provider's default. */
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Reasoning asked for: an effort level, a token budget, or both. `enabled: false` turns it off. */
  reasoning?: { enabled: boolean; effort?: ReasoningEffort; budgetTokens?: number };
  responseFormat?: ResponseFormat;
  stream: boolean;
  /**
   * How the client reads a stream when its dialect has two ways: Gemini's `streamGenerateContent` without
   * `alt=sse` is one JSON array sent piece by piece. Absent: server-sent events.
   */
  streamFraming?: 'json-array';
  /** Chat's `stream_options.include_usage`: a usage chunk at the end of the stream. */
  includeUsage?: boolean;
  /** An end-user id (`user`, `metadata.user_id`). */
  user?: string;
  /** Log probabilities asked for: `top` alternatives per token (0: only the chosen token's). */
  logprobs?: { top: number };
  /** Several choices per prompt. Formats without it get n calls from the gateway, so encoders never see n > 1. */
  n?: number;
  /**
   * Fields the client's dialect knows and the canonical model has no place for, by their name in that
   * dialect (e.g. `context_management`, `include`, `logit_bias`). An encoder for the same dialect keeps
   * them; any other encoder lists the ones it leaves out in `EncodedRequest.dropped`, or refuses those
   * that would change the answer's meaning.
   */
  extensions: Record<string, unknown>;
  /**
   * Names this client gave canonical fields where its dialect has two (Chat's `max_completion_tokens`
   * beside `max_tokens`): `fieldName` says the client's own word in errors and the "dropped" list.
   */
  fieldNames?: Partial<Record<keyof CanonicalRequest, string>>;
  /**
   * Why a field or extension (by its name in the client's dialect, e.g. `best_of`, `messages[2].content[0]`)
   * cannot be honoured, when there is more to say than "is not supported": `cannotHonour` words its refusal
   * with this unless the encoder gives its own reason.
   */
  unsupportedWhy?: Record<string, string>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'stop_sequence' | 'pause' | 'error';

export interface Usage {
  /** Every prompt token, cached ones included (OpenAI's `prompt_tokens`, not Anthropic's `input_tokens`). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Part of `outputTokens`. */
  reasoningTokens?: number;
}

/**
 * The stream every codec reads or writes. Text and reasoning arrive as deltas; a tool call opens with its
 * id and name, then its arguments arrive as JSON text deltas, then it ends. `index` numbers the tool calls
 * of one answer from 0. `usage` may come more than once: each time it is the running total so far.
 */
export type CanonicalEvent =
  | { type: 'start'; id?: string; model?: string }
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'reasoning_signature'; signature: string }
  | { type: 'reasoning_encrypted'; data: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; arguments: string }
  | { type: 'tool_call_end'; index: number }
  | { type: 'logprobs'; tokens: TokenLogprob[] }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason; stopSequence?: string };

/** A whole answer: the events of a stream, folded. */
export interface CanonicalAnswer {
  id: string;
  model: string;
  /** Text, reasoning and tool calls in the order the model produced them. */
  content: (TextPart | ReasoningPart | ToolCallPart)[];
  finishReason: FinishReason | null;
  stopSequence?: string;
  usage?: Usage;
  /** Present when the request asked for them and the provider gave them. */
  logprobs?: TokenLogprob[];
}

/** An upstream event as read off the wire: SSE for most providers, binary frames for Bedrock. */
export type UpstreamEvent =
  | { kind: 'sse'; event?: string; data: string }
  | { kind: 'frame'; headers: Record<string, string | number | boolean>; payload: Uint8Array };

/** The request body a provider codec made, and what it had to leave out (for the log row). */
export interface EncodedRequest {
  body: Record<string, unknown>;
  /** Names (in the client's dialect) of fields the target cannot honour and that were left out. */
  dropped: string[];
}

/** Who the encoded request is for: errors name the provider; some formats depend on the model. */
export interface EncodeTarget {
  provider: string;
  /** false when the model goes in the URL (Vertex, Bedrock, Gemini) rather than the body. */
  modelInBody: boolean;
}

/** Reads a provider's stream one event at a time; throws ProviderStreamError for an error inside the stream. */
export interface StreamDecoder {
  readonly framing: 'sse' | 'aws-eventstream';
  onEvent(event: UpstreamEvent): CanonicalEvent[];
  /** Called once the upstream ended; throws when it ended too early. */
  onEnd(): CanonicalEvent[];
}

/** Writes a client's stream: each call returns the text to send (SSE events, `data: [DONE]` …), maybe ''. */
export interface StreamEncoder {
  onEvent(event: CanonicalEvent): string;
  /** The upstream ended normally. */
  onEnd(): string;
  /** The upstream failed after the stream began: the dialect's error event (and its end). */
  onError(error: GatewayError): string;
}

/** A provider wire format: how a canonical request goes out and how the answer comes back. */
export interface ProviderCodec {
  readonly format: WireFormat;
  /** Throws GatewayError (400, naming the field) for what would change the answer's meaning. */
  encodeRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest;
  decodeResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer;
  createStreamDecoder(request: CanonicalRequest): StreamDecoder;
}

/** A client dialect: how a request comes in and how the answer goes back. */
export interface DialectCodec {
  readonly dialect: Dialect;
  /** The parsed JSON body → canonical; throws GatewayError (400 naming the field) for bad input. */
  decodeRequest(json: unknown): CanonicalRequest;
  encodeResponse(answer: CanonicalAnswer, request: CanonicalRequest): object;
  /**
   * `fanOut`: this stream is choice `index` of `of` calls made for Chat's `n` (formats without n). Such a
   * part numbers its choices `index` and leaves out what the gateway writes once for all parts: the
   * usage chunk and `data: [DONE]` (see `fanOutTail`).
   */
  createStreamEncoder(request: CanonicalRequest, fanOut?: { index: number; of: number }): StreamEncoder;
  /** After every part of a fanned-out stream ended: the summed usage (when asked for) and the stream's end. */
  fanOutTail?(request: CanonicalRequest, usage: Usage | undefined): string;
  /** An error in this dialect's JSON shape. */
  errorBody(error: GatewayError): object;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });

/** Adds up usage from several calls (Chat's `n` fanned out as n calls). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const result: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  const cacheRead = sum(a.cacheReadTokens, b.cacheReadTokens);
  const cacheWrite = sum(a.cacheWriteTokens, b.cacheWriteTokens);
  const reasoning = sum(a.reasoningTokens, b.reasoningTokens);
  if (cacheRead !== undefined) result.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) result.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

/** Folds a stream's events into the whole answer (a non-streamed answer is the same events, folded). */
export function foldEvents(events: Iterable<CanonicalEvent>, fallback: { id: string; model: string }): CanonicalAnswer {
  const answer: CanonicalAnswer = { id: fallback.id, model: fallback.model, content: [], finishReason: null };
  const calls = new Map<number, ToolCallPart>();
  for (const event of events) {
    const last = answer.content.at(-1);
    switch (event.type) {
      case 'start':
        if (event.id) answer.id = event.id;
        if (event.model) answer.model = event.model;
        break;
      case 'text':
        if (last?.type === 'text') last.text += event.text;
        else answer.content.push({ type: 'text', text: event.text });
        break;
      case 'reasoning':
        if (last?.type === 'reasoning' && last.signature === undefined && last.encrypted === undefined) last.text += event.text;
        else answer.content.push({ type: 'reasoning', text: event.text });
        break;
      case 'reasoning_signature':
        if (last?.type === 'reasoning') last.signature = event.signature;
        else answer.content.push({ type: 'reasoning', text: '', signature: event.signature });
        break;
      case 'reasoning_encrypted':
        answer.content.push({ type: 'reasoning', text: '', encrypted: event.data });
        break;
      case 'tool_call_start': {
        const call: ToolCallPart = { type: 'tool_call', id: event.id, name: event.name, arguments: '' };
        calls.set(event.index, call);
        answer.content.push(call);
        break;
      }
      case 'tool_call_delta': {
        const call = calls.get(event.index);
        if (call) call.arguments += event.arguments;
        break;
      }
      case 'tool_call_end':
        break;
      case 'usage':
        answer.usage = event.usage;
        break;
      case 'logprobs':
        (answer.logprobs ??= []).push(...event.tokens);
        break;
      case 'finish':
        answer.finishReason = event.reason;
        if (event.stopSequence !== undefined) answer.stopSequence = event.stopSequence;
        break;
    }
  }
  return answer;
}

/** The events that make up a whole answer: what a stream encoder needs to write a held answer as a stream. */
export function answerEvents(answer: CanonicalAnswer): CanonicalEvent[] {
  const events: CanonicalEvent[] = [{ type: 'start', id: answer.id, model: answer.model }];
  let toolIndex = 0;
  for (const part of answer.content) {
    if (part.type === 'text') events.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning') {
      if (part.text) events.push({ type: 'reasoning', text: part.text });
      if (part.signature) events.push({ type: 'reasoning_signature', signature: part.signature });
      if (part.encrypted) events.push({ type: 'reasoning_encrypted', data: part.encrypted });
    } else {
      const index = toolIndex++;
      events.push({ type: 'tool_call_start', index, id: part.id, name: part.name });
      if (part.arguments) events.push({ type: 'tool_call_delta', index, arguments: part.arguments });
      events.push({ type: 'tool_call_end', index });
    }
  }
  if (answer.logprobs?.length) events.push({ type: 'logprobs', tokens: answer.logprobs });
  if (answer.usage) events.push({ type: 'usage', usage: answer.usage });
  if (answer.finishReason) events.push({ type: 'finish', reason: answer.finishReason, ...(answer.stopSequence !== undefined ? { stopSequence: answer.stopSequence } : {}) });
  return events;
}

/** The text of a tool result, for formats whose results are text only. */
export function toolResultText(content: ToolResultContent): string {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

/** The text of a list of parts (system blocks, a message's text parts). */
export const joinText = (parts: readonly ContentPart[], separator = ''): string =>
  parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(separator);

/** Narrowing helpers for JSON read from a client or provider without trusting its shape. */
export function asRecord(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}
export const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const asNumber = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Where a turn sits in the client's body, for errors: its `source`, else its place among the turns. */
export function turnSource(request: Pick<CanonicalRequest, 'dialect'> & Partial<Pick<CanonicalRequest, 'fieldNames'>>, turn: Turn, index: number): string {
  return turn.source ?? `${fieldName(request, 'turns')}[${index}]`;
}

/**
 * The refusal of a user turn that holds nothing once empty and blank text is left out (`content: ''`),
 * for providers that refuse an empty message: a 400 naming that message's content (or, for a turn that
 * does not say where it came from, such as a completion's prompt, the conversation's field).
 */
export function emptyUserTurn(request: CanonicalRequest, turn: Turn, provider: string): GatewayError {
  const field = fieldName(request, 'turns');
  if (turn.source === undefined) return invalidRequest(`'${field}' must not be empty: provider '${provider}' answers a conversation and refuses an empty message`, field);
  return invalidRequest(`'${turn.source}.content' must not be empty: provider '${provider}' refuses a user message with no content`, `${turn.source}.content`);
}

/**
 * The refusal of a conversation whose first message is the assistant's (`turn`), for providers that want
 * the user first: a 400 naming that message (or the conversation's field when the turn does not say).
 */
export function assistantFirst(request: CanonicalRequest, turn: Turn, provider: string): GatewayError {
  const where = turn.source ?? fieldName(request, 'turns');
  return invalidRequest(`'${where}': provider '${provider}' needs the conversation to start with a user message, and this one starts with an assistant message`, where);
}

/** How each dialect names the canonical request's fields: errors and the "dropped" list speak the client's words. */
const FIELD_NAMES: Record<Dialect, Partial<Record<keyof CanonicalRequest, string>>> = {
  'openai-chat': { turns: 'messages', maxOutputTokens: 'max_tokens', topP: 'top_p', topK: 'top_k', presencePenalty: 'presence_penalty', frequencyPenalty: 'frequency_penalty', toolChoice: 'tool_choice', parallelToolCalls: 'parallel_tool_calls', reasoning: 'reasoning_effort', responseFormat: 'response_format', logprobs: 'logprobs' },
  'openai-completions': { turns: 'prompt', maxOutputTokens: 'max_tokens', topP: 'top_p', topK: 'top_k', presencePenalty: 'presence_penalty', frequencyPenalty: 'frequency_penalty', logprobs: 'logprobs' },
  'openai-responses': { maxOutputTokens: 'max_output_tokens', topP: 'top_p', toolChoice: 'tool_choice', parallelToolCalls: 'parallel_tool_calls', responseFormat: 'text.format', system: 'instructions', turns: 'input', logprobs: 'top_logprobs' },
  'anthropic-messages': { maxOutputTokens: 'max_tokens', topP: 'top_p', topK: 'top_k', stop: 'stop_sequences', toolChoice: 'tool_choice', parallelToolCalls: 'tool_choice.disable_parallel_tool_use', reasoning: 'thinking', user: 'metadata.user_id', turns: 'messages' },
  gemini: { turns: 'contents', system: 'systemInstruction', maxOutputTokens: 'generationConfig.maxOutputTokens', temperature: 'generationConfig.temperature', topP: 'generationConfig.topP', topK: 'generationConfig.topK', stop: 'generationConfig.stopSequences', seed: 'generationConfig.seed', presencePenalty: 'generationConfig.presencePenalty', frequencyPenalty: 'generationConfig.frequencyPenalty', reasoning: 'generationConfig.thinkingConfig', responseFormat: 'generationConfig.responseMimeType', logprobs: 'generationConfig.logprobs', n: 'generationConfig.candidateCount', toolChoice: 'toolConfig.functionCallingConfig', tools: 'tools' },
};

/** A canonical field's name in the client's dialect, e.g. `maxOutputTokens` → `max_tokens`. */
export function fieldName(request: Pick<CanonicalRequest, 'dialect'> & Partial<Pick<CanonicalRequest, 'fieldNames'>>, field: keyof CanonicalRequest | string): string {
  return (request.fieldNames as Record<string, string | undefined> | undefined)?.[field] ?? (FIELD_NAMES[request.dialect] as Record<string, string | undefined>)[field] ?? field;
}

/** Why a field (canonical, or an extension's own name) cannot be honoured, as the client's decoder worded it. */
export function unsupportedReason(request: Pick<CanonicalRequest, 'dialect'> & Partial<Pick<CanonicalRequest, 'fieldNames' | 'unsupportedWhy'>>, field: string): string {
  return request.unsupportedWhy?.[fieldName(request, field)] ?? 'is not supported';
}

/**
 * What an encoder calls for a field its format cannot honour: refused with the contract's 400, or left out
 * and listed in `dropped`, as the request's dialect asks. `field` is a canonical field or an extension's
 * own name; `why` defaults to the decoder's wording (`unsupportedReason`), else "is not supported".
 * Returns nothing: the caller simply does not encode the field.
 */
export function cannotHonour(request: CanonicalRequest, target: EncodeTarget, dropped: string[], field: string, why?: string): void {
  const name = fieldName(request, field);
  if (request.onUnsupported === 'refuse') throw unsupportedField(name, target.provider, why ?? unsupportedReason(request, field));
  if (!dropped.includes(name)) dropped.push(name);
}

/**
 * A tool call's arguments as the JSON object formats that carry them parsed (Bedrock's `input`, Gemini's
 * `args`) need; empty text is `{}`. Anything else is the client's error, named at its turns field.
 */
export function toolArgumentsObject(text: string, request: CanonicalRequest): Record<string, unknown> {
  if (text.trim() === '') return {};
  const field = fieldName(request, 'turns');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest(`The arguments of a tool call in '${field}' are not valid JSON`, field);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidRequest(`The arguments of a tool call in '${field}' must be a JSON object`, field);
  return parsed as Record<string, unknown>;
}
