// OpenAI Chat Completions, both ways round. As a dialect (OpenCode, pi, Cursor, the `openai` SDKs): a client's
// body → canonical, and canonical answers back as `chat.completion` / `chat.completion.chunk` for providers
// that speak something else. As a provider format (OpenAI-compatible servers, Ollama, Groq, Azure …): a
// canonical request → a Chat body, and the provider's answer or chunk stream → canonical events.
// The answer and chunk builders are shared with openai-completions.ts (`text_completion` has the same frame).
import { randomUUID } from 'node:crypto';
import { errorTypeForStatus, invalidRequest, unsupportedField, type GatewayError } from '../core/errors.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';
import {
  asArray,
  asRecord,
  asString,
  cannotHonour,
  fieldName,
  foldEvents,
  joinText,
  toolResultText,
  type CanonicalAnswer,
  type CanonicalEvent,
  type CanonicalRequest,
  type DialectCodec,
  type EncodedRequest,
  type EncodeTarget,
  type FinishReason,
  type ImagePart,
  type ImageSource,
  type ProviderCodec,
  type ReasoningEffort,
  type ResponseFormat,
  type StreamDecoder,
  type StreamEncoder,
  type TextPart,
  type TokenLogprob,
  type ToolCallPart,
  type ToolChoice,
  type ToolDefinition,
  type ToolResultPart,
  type Turn,
  type Usage,
} from './canonical.js';

// ---- Reading a client's request (shared with openai-completions.ts) ------------------------------------------

/**
 * How a refusal of these fields is worded for a provider without them (as the old per-provider checks did);
 * decoders copy the ones a request uses into `unsupportedWhy`, so any encoder's `cannotHonour` says the same.
 */
export const REFUSAL_REASONS: Readonly<Record<string, string>> = {
  best_of: 'greater than 1 is not supported',
  echo: 'is not supported',
  logprobs: 'is not supported (the provider returns no log probabilities)',
  top_logprobs: 'is not supported (the provider returns no log probabilities)',
};

/** Values equal to OpenAI's default change nothing, so a provider without the field loses nothing when they are left out. */
export function isDefaultValue(field: string, value: unknown): boolean {
  switch (field) {
    case 'echo':
    case 'logprobs':
    case 'store':
      return value === false;
    case 'parallel_tool_calls':
      return value === true;
    case 'best_of':
      return value === 0 || value === 1;
    case 'presence_penalty':
    case 'frequency_penalty':
      return value === 0;
    case 'logit_bias':
    case 'metadata':
      return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
    case 'suffix':
      return value === '';
    case 'response_format':
      return asRecord(value).type === 'text';
    default:
      return false;
  }
}

/**
 * What a decoder meets that some provider may not honour: the refusal names the provider, which the decoder
 * does not know, so such things are kept in `extensions` under their path (`messages[0].name`) with the
 * wording of the refusal, and every encoder passes them to `cannotHonour`.
 */
export class Unsupported {
  readonly extensions: Record<string, unknown> = {};
  readonly why: Record<string, string> = {};
  add(path: string, value: unknown, why?: string): void {
    this.extensions[path] = value;
    if (why) this.why[path] = why;
  }
}

const numberOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * `top_k` is not OpenAI's, but Anthropic and Gemini sample with it and local servers take it; clients of those
 * send it as an extra field, which the request schema keeps unread, so it is checked here.
 */
export function readTopK(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidRequest("'top_k' must be an integer of at least 0", 'top_k');
  return value;
}

/** `stop` as a list, whichever form the client sent. */
export function readStop(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  const list = asArray(value).filter((item): item is string => typeof item === 'string');
  return list.length ? list : undefined;
}

/** Fields both OpenAI dialects read the same way into the canonical request. */
export const SHARED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'stop',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'user',
  'seed',
  'presence_penalty',
  'frequency_penalty',
]);

/** The sampling and stream fields shared by chat and completions requests. */
export function readSharedFields(body: Record<string, unknown>): Partial<CanonicalRequest> {
  const result: Partial<CanonicalRequest> = {};
  const temperature = numberOf(body.temperature);
  const topP = numberOf(body.top_p);
  const topK = readTopK(body.top_k);
  const seed = numberOf(body.seed);
  const n = numberOf(body.n);
  const stop = readStop(body.stop);
  // A penalty of 0 is no penalty: a provider without penalties loses nothing.
  const presence = numberOf(body.presence_penalty);
  const frequency = numberOf(body.frequency_penalty);
  if (temperature !== undefined) result.temperature = temperature;
  if (topP !== undefined) result.topP = topP;
  if (topK !== undefined) result.topK = topK;
  if (seed !== undefined) result.seed = seed;
  if (n !== undefined) result.n = n;
  if (stop) result.stop = stop;
  if (presence) result.presencePenalty = presence;
  if (frequency) result.frequencyPenalty = frequency;
  if (typeof body.user === 'string') result.user = body.user;
  if (asRecord(body.stream_options).include_usage === true) result.includeUsage = true;
  return result;
}

/** Every field the decoder did not read and that is not at its default: kept as an extension (with its refusal's wording). */
export function keepOtherFields(body: Record<string, unknown>, handled: ReadonlySet<string>, unsupported: Unsupported): void {
  for (const [field, value] of Object.entries(body)) {
    if (value === null || value === undefined || handled.has(field) || isDefaultValue(field, value)) continue;
    unsupported.add(field, value, REFUSAL_REASONS[field]);
  }
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.+)$/s;

function imageSource(part: Record<string, unknown>, where: string): ImageSource {
  const url = asString(asRecord(part.image_url).url);
  if (!url) throw invalidRequest(`'${where}.image_url.url' is required`, 'messages');
  const inline = DATA_URL.exec(url);
  if (inline) return { kind: 'base64', mediaType: inline[1], data: inline[2] };
  if (/^https?:\/\//.test(url)) return { kind: 'url', url };
  throw invalidRequest(`'${where}.image_url.url' must be an http(s) URL or a base64 data: URL`, 'messages');
}

/** Text and image parts of a message; `images`: whether this message may show the model an image (a user's may). */
function contentParts(content: unknown, where: string, images: boolean, unsupported: Unsupported): (TextPart | ImagePart)[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return asArray(content).flatMap((entry, index): (TextPart | ImagePart)[] => {
    const part = asRecord(entry);
    if (part.type === 'text' && typeof part.text === 'string') {
      // An empty text part adds nothing, and stricter APIs (Anthropic's) refuse empty text blocks.
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    }
    if (part.type === 'image_url' && images) return [{ type: 'image', source: imageSource(part, `${where}.content[${index}]`) }];
    unsupported.add(`${where}.content[${index}]`, entry, `of type '${String(part.type)}' is not supported`);
    return [];
  });
}

function readToolCalls(value: unknown, where: string, unsupported: Unsupported): ToolCallPart[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest(`'${where}.tool_calls' must be an array`, 'messages');
  return value.flatMap((entry, index): ToolCallPart[] => {
    const call = asRecord(entry);
    if (call.type !== undefined && call.type !== 'function') {
      unsupported.add(`${where}.tool_calls[${index}]`, entry, `of type '${String(call.type)}' is not supported`);
      return [];
    }
    const fn = asRecord(call.function);
    const id = asString(call.id);
    const name = asString(fn.name);
    if (!id || !name) throw invalidRequest(`'${where}.tool_calls[${index}]' needs an id and a function name`, 'messages');
    // Some clients send '' for a call without arguments.
    const args = asString(fn.arguments) || '{}';
    try {
      JSON.parse(args);
    } catch {
      throw invalidRequest(`'${where}.tool_calls[${index}].function.arguments' is not valid JSON`, 'messages');
    }
    return [{ type: 'tool_call', id, name, arguments: args }];
  });
}

/**
 * The chat messages as canonical system text and turns. System and developer messages that lead are the
 * system text; later ones are `system` turns in place. An assistant's `tool_calls` become tool-call parts of
 * its turn; `tool` messages become tool-result parts of one user turn (consecutive results share it).
 */
export function readMessages(messages: unknown[], unsupported: Unsupported): { system: TextPart[]; turns: Turn[] } {
  const system: TextPart[] = [];
  const turns: Turn[] = [];
  const toolNames = new Map<string, string>();
  /** The user turn the last `tool` messages made: the next one joins it while it is still the last turn. */
  let resultsTurn: Turn | undefined;
  messages.forEach((entry, index) => {
    const message = asRecord(entry);
    const where = `messages[${index}]`;
    for (const field of ['function_call', 'name'] as const) {
      if (message[field] !== undefined && message[field] !== null) unsupported.add(`${where}.${field}`, message[field]);
    }
    // Only a user's message may show the model an image, as in OpenAI's API.
    const parts = contentParts(message.content, where, message.role === 'user', unsupported);
    switch (message.role) {
      case 'system':
      case 'developer':
        if (turns.length === 0) for (const part of parts as TextPart[]) system.push(part);
        else if (parts.length) turns.push({ role: 'system', parts, source: where });
        return;
      case 'user':
        // Kept even when empty: whether an empty message may go is the provider's to say (see `emptyUserTurn`).
        turns.push({ role: 'user', parts, source: where });
        return;
      case 'assistant': {
        const calls = readToolCalls(message.tool_calls, where, unsupported);
        for (const call of calls) toolNames.set(call.id, call.name);
        if (parts.length || calls.length) turns.push({ role: 'assistant', parts: [...parts, ...calls], source: where });
        return;
      }
      case 'tool': {
        const callId = asString(message.tool_call_id);
        const name = callId ? toolNames.get(callId) : undefined;
        if (!callId || !name) throw invalidRequest(`'${where}.tool_call_id' must name a tool call of an earlier assistant message`, 'messages');
        const result: ToolResultPart = { type: 'tool_result', callId, name, content: joinText(parts) };
        // Known by identity, not by checking every part of the last turn (quadratic over many tool messages).
        if (resultsTurn !== undefined && turns.at(-1) === resultsTurn) resultsTurn.parts.push(result);
        else turns.push((resultsTurn = { role: 'user', parts: [result], source: where }));
        return;
      }
      default:
        unsupported.add(`${where}.role`, message.role, `'${String(message.role)}' is not supported`);
    }
  });
  return { system, turns };
}

function readToolChoice(value: unknown, unsupported: Unsupported): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { mode: value };
  const choice = asRecord(value);
  const name = asString(asRecord(choice.function).name);
  if (choice.type === 'function' && name) return { mode: 'tool', name };
  unsupported.add('tool_choice', value, `${JSON.stringify(value)} is not supported`);
  return undefined;
}

function readTools(body: Record<string, unknown>, unsupported: Unsupported): { tools?: ToolDefinition[]; toolChoice?: ToolChoice } {
  const raw = body.tools;
  const toolChoice = readToolChoice(body.tool_choice, unsupported);
  if (raw === undefined || raw === null) {
    if (toolChoice && toolChoice.mode !== 'none' && toolChoice.mode !== 'auto') throw invalidRequest("'tool_choice' needs 'tools'", 'tool_choice');
    return toolChoice ? { toolChoice } : {};
  }
  if (!Array.isArray(raw)) throw invalidRequest("'tools' must be an array", 'tools');
  const tools = raw.flatMap((entry, index): ToolDefinition[] => {
    const tool = asRecord(entry);
    if (tool.type !== 'function') {
      unsupported.add(`tools[${index}]`, entry, `of type '${String(tool.type)}' is not supported`);
      return [];
    }
    const fn = asRecord(tool.function);
    const name = asString(fn.name);
    if (!name) throw invalidRequest(`'tools[${index}].function.name' is required`, 'tools');
    const description = asString(fn.description);
    const parameters = fn.parameters === undefined ? { type: 'object', properties: {} } : asRecord(fn.parameters);
    return [{ name, ...(description ? { description } : {}), parameters, ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}) }];
  });
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}

function readResponseFormat(value: unknown, unsupported: Unsupported): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const format = asRecord(value);
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const spec = asRecord(format.json_schema);
      if (typeof spec.schema !== 'object' || spec.schema === null || Array.isArray(spec.schema)) {
        throw invalidRequest("'response_format.json_schema.schema' must be a JSON Schema object", 'response_format');
      }
      return { type: 'json_schema', name: asString(spec.name) ?? 'response', schema: asRecord(spec.schema), ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}) };
    }
    default:
      unsupported.add('response_format', value, `of type '${String(format.type)}' is not supported`);
      return undefined;
  }
}

const EFFORTS: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];

function readReasoning(value: unknown): CanonicalRequest['reasoning'] {
  if (value === undefined || value === null) return undefined;
  if (value === 'none') return { enabled: false };
  if (typeof value === 'string' && (EFFORTS as readonly string[]).includes(value)) return { enabled: true, effort: value as ReasoningEffort };
  throw invalidRequest("'reasoning_effort' must be one of 'none', 'minimal', 'low', 'medium', 'high' or 'xhigh'", 'reasoning_effort');
}

const CHAT_FIELDS: ReadonlySet<string> = new Set([
  ...SHARED_FIELDS,
  'messages',
  'max_completion_tokens',
  'reasoning_effort',
  'response_format',
  'logprobs',
  'top_logprobs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
]);

/** A Chat Completions body (already checked by `validateChat`) → canonical. */
export function decodeChatRequest(json: unknown): CanonicalRequest {
  const body = asRecord(json);
  const unsupported = new Unsupported();
  const { system, turns } = readMessages(asArray(body.messages), unsupported);
  const { tools, toolChoice } = readTools(body, unsupported);
  const maxCompletionTokens = numberOf(body.max_completion_tokens);
  const maxOutputTokens = maxCompletionTokens ?? numberOf(body.max_tokens);
  const reasoning = readReasoning(body.reasoning_effort);
  const responseFormat = readResponseFormat(body.response_format, unsupported);
  const why: Record<string, string> = {};
  let logprobs: CanonicalRequest['logprobs'];
  if (body.logprobs === true) {
    logprobs = { top: numberOf(body.top_logprobs) ?? 0 };
    why.logprobs = REFUSAL_REASONS.logprobs;
  } else if (body.top_logprobs !== undefined && body.top_logprobs !== null) {
    unsupported.add('top_logprobs', body.top_logprobs, REFUSAL_REASONS.top_logprobs);
  }
  keepOtherFields(body, CHAT_FIELDS, unsupported);
  return {
    dialect: 'openai-chat',
    onUnsupported: 'refuse',
    model: asString(body.model) ?? '',
    system,
    turns,
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    // true is the default: only `false` asks for something.
    ...(body.parallel_tool_calls === false ? { parallelToolCalls: false } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...readSharedFields(body),
    ...(reasoning ? { reasoning } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(logprobs ? { logprobs } : {}),
    stream: body.stream === true,
    extensions: unsupported.extensions,
    fieldNames: { turns: 'messages', system: 'messages', ...(maxCompletionTokens !== undefined ? { maxOutputTokens: 'max_completion_tokens' } : {}) },
    unsupportedWhy: { ...unsupported.why, ...why },
  };
}

// ---- Writing a Chat body for a provider ---------------------------------------------------------------------

const imageUrl = (source: ImageSource): string => (source.kind === 'base64' ? `data:${source.mediaType};base64,${source.data}` : source.url);

/** A user message's content: one text stays a plain string; anything else is parts. */
function userContent(parts: (TextPart | ImagePart)[]): string | object[] {
  if (parts.length === 1 && parts[0].type === 'text') return parts[0].text;
  return parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: imageUrl(part.source) } }));
}

/** A Messages thinking budget in Chat's words, for a request that gives no effort level. */
function effortForBudget(budget: number): ReasoningEffort {
  if (budget < 2048) return 'low';
  if (budget < 16384) return 'medium';
  return 'high';
}

function encodeMessages(request: CanonicalRequest, target: EncodeTarget): object[] {
  const where = fieldName(request, 'turns');
  const messages: object[] = [];
  const systemText = request.system.map((part) => part.text).filter((text) => text !== '').join('\n\n');
  if (systemText) messages.push({ role: 'system', content: systemText });
  let conversational = false;
  // The tool calls a `tool` message may answer: those of the assistant message just before.
  let openCalls = new Set<string>();
  for (const turn of request.turns) {
    const images = turn.parts.filter((part): part is ImagePart => part.type === 'image');
    if (turn.role === 'system') {
      if (images.length) throw unsupportedField(where, target.provider, 'with an image in a system message is not supported');
      const text = joinText(turn.parts, '\n\n');
      if (text) messages.push({ role: 'system', content: text });
      continue;
    }
    if (turn.role === 'assistant') {
      if (images.length) throw unsupportedField(where, target.provider, 'with an image in an assistant turn is not supported');
      if (turn.parts.some((part) => part.type === 'tool_result')) throw invalidRequest(`'${where}' holds a tool result in an assistant turn`, where);
      const text = joinText(turn.parts);
      const calls = turn.parts.filter((part): part is ToolCallPart => part.type === 'tool_call');
      // Reasoning has no place in a Chat request: a turn of reasoning only says nothing here.
      if (text === '' && calls.length === 0) continue;
      conversational = true;
      const toolCalls = calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
      // OpenAI's own shape: `content: null` beside tool calls when the assistant said nothing.
      messages.push(calls.length ? { role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls } : { role: 'assistant', content: text });
      openCalls = new Set(calls.map((call) => call.id));
      continue;
    }
    if (turn.parts.some((part) => part.type === 'tool_call')) throw invalidRequest(`'${where}' holds a tool call in a user turn`, where);
    // Each tool result is a `tool` message; Chat's tool messages take text only, so their images follow in a user message.
    const shown: (TextPart | ImagePart)[] = [];
    for (const part of turn.parts) {
      if (part.type !== 'tool_result') continue;
      if (!openCalls.has(part.callId)) {
        throw invalidRequest(`'${where}' holds a tool result for call '${part.callId}', which the assistant turn before did not make`, where);
      }
      messages.push({ role: 'tool', tool_call_id: part.callId, content: toolResultText(part.content) });
      if (typeof part.content !== 'string') for (const item of part.content) if (item.type === 'image') shown.push(item);
      conversational = true;
    }
    for (const part of turn.parts) if (part.type === 'text' ? part.text !== '' : part.type === 'image') shown.push(part as TextPart | ImagePart);
    if (shown.length) {
      messages.push({ role: 'user', content: userContent(shown) });
      openCalls = new Set();
      conversational = true;
    }
  }
  if (!conversational) throw invalidRequest(`'${where}' must hold a user or assistant message besides the system text`, where);
  return messages;
}

function encodeToolChoice(choice: ToolChoice): unknown {
  return choice.mode === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.mode;
}

function encodeResponseFormat(format: ResponseFormat): object | undefined {
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) } };
}

/** An extension Chat itself defines (a chat client's own field, e.g. `logit_bias`), as opposed to a path such as `messages[0].name`. */
const isTopLevelField = (name: string): boolean => /^[A-Za-z_][\w]*$/.test(name);

/**
 * A canonical request as a Chat Completions body. The output limit goes as `max_tokens`, which every
 * Chat server takes (OpenAI's reasoning models want `max_completion_tokens`; those are reached same-dialect).
 */
export function encodeChatRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
  const dropped: string[] = [];
  // Extensions first: a refused one (a completion's token-ID prompt, a message's `name`) is the 400 the client
  // should see, before any complaint about what is left of the conversation without it.
  const kept = Object.entries(request.extensions).filter(([name]) => {
    if (request.dialect === 'openai-chat' && isTopLevelField(name)) return true;
    cannotHonour(request, target, dropped, name);
    return false;
  });
  const body: Record<string, unknown> = {};
  if (target.modelInBody) body.model = request.model;
  body.messages = encodeMessages(request, target);
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters, ...(tool.strict !== undefined ? { strict: tool.strict } : {}) },
    }));
    // OpenAI refuses tool_choice and parallel_tool_calls without tools; with none, there is nothing to choose.
    if (request.toolChoice) body.tool_choice = encodeToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  // Not OpenAI's (api.openai.com refuses it), but Ollama's /v1, vLLM and llama.cpp sample with it: sent only when the client asked.
  if (request.topK !== undefined) body.top_k = request.topK;
  if (request.stop?.length) body.stop = request.stop;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.user !== undefined) body.user = request.user;
  const reasoning = request.reasoning;
  if (reasoning?.enabled) {
    const effort = reasoning.effort ?? (reasoning.budgetTokens !== undefined ? effortForBudget(reasoning.budgetTokens) : undefined);
    if (effort) body.reasoning_effort = effort;
  } else if (reasoning?.enabled === false && request.dialect === 'openai-chat') {
    // A Chat client's own `reasoning_effort: "none"` goes back as it came (other dialects' "off" stays unsaid).
    body.reasoning_effort = 'none';
  }
  const responseFormat = request.responseFormat && encodeResponseFormat(request.responseFormat);
  if (responseFormat) body.response_format = responseFormat;
  if (request.logprobs) {
    body.logprobs = true;
    if (request.logprobs.top > 0) body.top_logprobs = request.logprobs.top;
  }
  if (request.n !== undefined && request.n > 1) body.n = request.n;
  if (request.stream) {
    body.stream = true;
    // Always: the gateway needs the usage for the log whether or not the client asked for it.
    body.stream_options = { include_usage: true };
  }
  // A chat client's own fields (logit_bias, store, metadata …) go to a Chat provider as they came.
  for (const [name, value] of kept) if (!(name in body)) body[name] = value;
  return { body, dropped };
}

// ---- Reading a Chat provider's answer and stream --------------------------------------------------------------

/** Tool calls the provider made without an id of its own get one, as OpenAI's always have. */
export const newToolCallId = (): string => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

export function mapChatFinishReason(reason: unknown): FinishReason | undefined {
  switch (reason) {
    case null:
    case undefined:
    case '':
      return undefined;
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    // stop, eos (some local servers), and values added later.
    default:
      return 'stop';
  }
}

/** OpenAI's usage → canonical: `prompt_tokens` already counts the cached ones, `completion_tokens` the reasoning ones. */
export function readChatUsage(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (typeof usage.prompt_tokens !== 'number' && typeof usage.completion_tokens !== 'number') return undefined;
  const result: Usage = { inputTokens: numberOf(usage.prompt_tokens) ?? 0, outputTokens: numberOf(usage.completion_tokens) ?? 0 };
  const cached = numberOf(asRecord(usage.prompt_tokens_details).cached_tokens);
  const reasoning = numberOf(asRecord(usage.completion_tokens_details).reasoning_tokens);
  if (cached !== undefined) result.cacheReadTokens = cached;
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

function readTokenLogprobs(value: unknown): TokenLogprob[] {
  return asArray(asRecord(value).content).map((entry) => {
    const token = asRecord(entry);
    const top = asArray(token.top_logprobs).map((alternative) => ({ token: asString(asRecord(alternative).token) ?? '', logprob: numberOf(asRecord(alternative).logprob) ?? 0 }));
    return { token: asString(token.token) ?? '', logprob: numberOf(token.logprob) ?? 0, ...(top.length ? { top } : {}) };
  });
}

const CONTRACT_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'api_error']);

/** An `error` object in a 200 answer or inside the stream (OpenRouter, vLLM …). */
function providerError(value: unknown): ProviderStreamError {
  const error = asRecord(value);
  const type = asString(error.type);
  const code = typeof error.code === 'number' ? error.code : undefined;
  const contractType = type && CONTRACT_ERROR_TYPES.has(type) ? type : code !== undefined ? errorTypeForStatus(code) : 'api_error';
  return new ProviderStreamError(asString(error.message) ?? 'The provider reported an error in the stream', contractType, asString(error.code) ?? (code !== undefined ? String(code) : (type ?? null)));
}

/** Choice 0 (the gateway never asks a Chat provider for more). */
function firstChoice(root: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = asArray(root.choices).map(asRecord);
  return choices.find((choice) => choice.index === 0 || choice.index === undefined);
}

/** Text of a message's content: a string, or (some servers) an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => asString(asRecord(part).text) ?? '')
    .join('');
}

export function decodeChatResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const root = asRecord(json);
  if (root.error !== undefined && root.error !== null && !Array.isArray(root.choices)) throw providerError(root.error);
  const events: CanonicalEvent[] = [{ type: 'start', ...(asString(root.id) ? { id: asString(root.id) } : {}), ...(asString(root.model) ? { model: asString(root.model) } : {}) }];
  const choice = firstChoice(root);
  if (choice) {
    const message = asRecord(choice.message);
    const reasoning = asString(message.reasoning_content) || asString(message.reasoning);
    if (reasoning) events.push({ type: 'reasoning', text: reasoning });
    const text = contentText(message.content) || (asString(message.refusal) ?? '');
    if (text) events.push({ type: 'text', text });
    const calls = asArray(message.tool_calls).map(asRecord);
    // The deprecated single `function_call` of older servers.
    if (message.function_call) calls.push({ function: message.function_call });
    calls.forEach((call, index) => {
      const fn = asRecord(call.function);
      events.push({ type: 'tool_call_start', index, id: asString(call.id) || newToolCallId(), name: asString(fn.name) ?? '' });
      const args = typeof fn.arguments === 'string' ? fn.arguments : fn.arguments !== undefined ? JSON.stringify(fn.arguments) : '';
      if (args) events.push({ type: 'tool_call_delta', index, arguments: args });
      events.push({ type: 'tool_call_end', index });
    });
    const tokens = readTokenLogprobs(choice.logprobs);
    if (tokens.length) events.push({ type: 'logprobs', tokens });
  }
  const usage = readChatUsage(root.usage);
  if (usage) events.push({ type: 'usage', usage });
  const finish = mapChatFinishReason(choice?.finish_reason);
  if (finish) events.push({ type: 'finish', reason: finish });
  return foldEvents(events, { id: `chatcmpl-${randomUUID().replace(/-/g, '')}`, model: request.model });
}

/**
 * Reads `chat.completion.chunk` events as they come: content, reasoning (`reasoning_content` from DeepSeek
 * and vLLM, `reasoning` from Ollama and OpenRouter), tool-call deltas (index, id and name first, then argument
 * pieces), the finish reason and the usage chunk. Ends with `[DONE]` or at least a finish reason.
 */
export function createChatStreamDecoder(request: CanonicalRequest): StreamDecoder {
  let started = false;
  let finished = false;
  let done = false;
  /** The provider's tool-call index (or id, for servers that send none) → ours, numbered from 0. */
  const calls = new Map<string, number>();
  const open = new Set<number>();
  let lastKey: string | undefined;
  const closeCalls = (): CanonicalEvent[] => {
    const events: CanonicalEvent[] = [...open].map((index) => ({ type: 'tool_call_end', index }));
    open.clear();
    return events;
  };
  const startEvent = (chunk: Record<string, unknown>): CanonicalEvent[] => {
    if (started) return [];
    started = true;
    const id = asString(chunk.id);
    const model = asString(chunk.model);
    return [{ type: 'start', ...(id ? { id } : {}), ...(model ? { model } : {}) }];
  };

  function toolCallEvents(value: unknown): CanonicalEvent[] {
    const events: CanonicalEvent[] = [];
    for (const entry of asArray(value)) {
      const delta = asRecord(entry);
      const fn = asRecord(delta.function);
      const id = asString(delta.id);
      const key = typeof delta.index === 'number' ? `#${delta.index}` : id ? `id:${id}` : (lastKey ?? '#0');
      lastKey = key;
      let index = calls.get(key);
      if (index === undefined) {
        index = calls.size;
        calls.set(key, index);
        open.add(index);
        events.push({ type: 'tool_call_start', index, id: id || newToolCallId(), name: asString(fn.name) ?? '' });
      }
      const args = asString(fn.arguments);
      if (args) events.push({ type: 'tool_call_delta', index, arguments: args });
    }
    return events;
  }

  return {
    framing: 'sse',
    onEvent(event): CanonicalEvent[] {
      if (event.kind !== 'sse') return [];
      const data = event.data.trim();
      if (data === '[DONE]') {
        done = true;
        return [];
      }
      let chunk: Record<string, unknown>;
      try {
        chunk = asRecord(JSON.parse(data));
      } catch {
        throw new ProviderStreamError(`The provider sent a stream event that is not JSON: ${data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
      }
      if (chunk.error !== undefined && chunk.error !== null) throw providerError(chunk.error);
      const events = startEvent(chunk);
      const choice = firstChoice(chunk);
      let finish: FinishReason | undefined;
      if (choice) {
        const delta = asRecord(choice.delta);
        const reasoning = asString(delta.reasoning_content) || asString(delta.reasoning);
        if (reasoning) events.push({ type: 'reasoning', text: reasoning });
        const text = asString(delta.content);
        if (text) events.push({ type: 'text', text });
        events.push(...toolCallEvents(delta.tool_calls));
        const tokens = readTokenLogprobs(choice.logprobs);
        if (tokens.length) events.push({ type: 'logprobs', tokens });
        finish = finished ? undefined : mapChatFinishReason(choice.finish_reason);
      }
      const usage = readChatUsage(chunk.usage);
      if (usage) events.push({ type: 'usage', usage });
      if (finish) {
        finished = true;
        events.push(...closeCalls(), { type: 'finish', reason: finish });
      }
      return events;
    },
    onEnd(): CanonicalEvent[] {
      if (!finished && !done) throw new ProviderStreamError('The provider stream ended before a finish_reason', 'api_error', 'stream_incomplete');
      const events = [...startEvent({}), ...closeCalls()];
      // `[DONE]` with no finish reason (some local servers): the answer ended as a plain stop.
      if (!finished) events.push({ type: 'finish', reason: calls.size ? 'tool_calls' : 'stop' });
      finished = true;
      return events;
    },
  };
}

// ---- Writing OpenAI answers and chunks for a client (shared with openai-completions.ts) -----------------------

export type OpenAIShape = 'chat' | 'completions';

/** What every answer and chunk of one call shares. */
export interface AnswerIdentity {
  id: string;
  created: number;
  model: string;
}

export const nowInSeconds = (): number => Math.floor(Date.now() / 1000);

const objectName = (shape: OpenAIShape, chunk: boolean): string => (shape === 'chat' ? (chunk ? 'chat.completion.chunk' : 'chat.completion') : 'text_completion');

const newAnswerId = (shape: OpenAIShape): string => `${shape === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** Canonical usage in OpenAI's words: cached prompt tokens and reasoning tokens in their details, when there are any. */
export function openaiUsage(usage: Usage): object {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens ? { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } } : {}),
    ...(usage.reasoningTokens ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
  };
}

/** The finish reasons a Chat or Completions client knows. */
export function openaiFinishReason(reason: FinishReason | null | undefined, shape: OpenAIShape = 'chat'): 'stop' | 'length' | 'tool_calls' | 'content_filter' | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case 'tool_calls':
      // A text completion has no tool calls to point at (its finish reasons are stop, length, content_filter).
      return shape === 'chat' ? reason : 'stop';
    case 'length':
    case 'content_filter':
      return reason;
    // stop, stop_sequence, pause (a server tool paused the turn), error.
    default:
      return 'stop';
  }
}

const utf8Bytes = (token: string): number[] => Array.from(new TextEncoder().encode(token));

/**
 * OpenAI's log probabilities: chat `{content:[{token, logprob, bytes, top_logprobs}], refusal}`; completions
 * `{tokens, token_logprobs, top_logprobs, text_offset}`, offsets counted on from `startOffset` in a stream.
 */
export function openaiLogprobs(shape: OpenAIShape, tokens: readonly TokenLogprob[], startOffset = 0): object {
  if (shape === 'chat') {
    return {
      content: tokens.map((token) => ({
        token: token.token,
        logprob: token.logprob,
        bytes: utf8Bytes(token.token),
        top_logprobs: (token.top ?? []).map((alternative) => ({ token: alternative.token, logprob: alternative.logprob, bytes: utf8Bytes(alternative.token) })),
      })),
      refusal: null,
    };
  }
  let offset = startOffset;
  return {
    tokens: tokens.map((token) => token.token),
    token_logprobs: tokens.map((token) => token.logprob),
    top_logprobs: tokens.map((token) => Object.fromEntries((token.top ?? []).map((alternative) => [alternative.token, alternative.logprob]))),
    text_offset: tokens.map((token) => {
      const at = offset;
      offset += token.token.length;
      return at;
    }),
  };
}

/** A whole answer: `chat.completion` or `text_completion`. */
export function encodeOpenAIAnswer(shape: OpenAIShape, answer: CanonicalAnswer): object {
  const text = answer.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const logprobs = answer.logprobs?.length ? openaiLogprobs(shape, answer.logprobs) : null;
  const finishReason = openaiFinishReason(answer.finishReason, shape);
  let choice: object;
  if (shape === 'chat') {
    const toolCalls = answer.content.flatMap((part) => (part.type === 'tool_call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }] : []));
    // OpenAI leaves `content` null when the assistant only calls tools.
    const message = toolCalls.length ? { role: 'assistant', content: text === '' ? null : text, refusal: null, tool_calls: toolCalls } : { role: 'assistant', content: text, refusal: null };
    choice = { index: 0, message, logprobs, finish_reason: finishReason };
  } else {
    choice = { index: 0, text, logprobs, finish_reason: finishReason };
  }
  return {
    id: answer.id,
    object: objectName(shape, false),
    created: nowInSeconds(),
    model: answer.model,
    choices: [choice],
    ...(answer.usage ? { usage: openaiUsage(answer.usage) } : {}),
  };
}

export interface ChunkContent {
  text?: string;
  /** The first chat chunk names the role, as OpenAI's does. */
  withRole?: boolean;
  finishReason?: string | null;
  logprobs?: object | null;
  /** Chat only: tool-call deltas, `[{index, id?, type?, function:{name?, arguments}}]`. */
  toolCalls?: readonly object[];
}

/**
 * One streamed chunk. With `include_usage`, OpenAI sends `usage: null` on every chunk but the last, which
 * carries the usage with `choices: []`.
 */
export function openaiChunk(shape: OpenAIShape, identity: AnswerIdentity, content: ChunkContent, includeUsage: boolean, index = 0): object {
  const finishReason = content.finishReason ?? null;
  let choice: object;
  if (shape === 'chat') {
    const delta: Record<string, unknown> = {};
    if (content.withRole) delta.role = 'assistant';
    if (content.text !== undefined) delta.content = content.text;
    if (content.toolCalls) delta.tool_calls = content.toolCalls;
    choice = { index, delta, logprobs: content.logprobs ?? null, finish_reason: finishReason };
  } else {
    choice = { index, text: content.text ?? '', logprobs: content.logprobs ?? null, finish_reason: finishReason };
  }
  return { id: identity.id, object: objectName(shape, true), created: identity.created, model: identity.model, choices: [choice], ...(includeUsage ? { usage: null } : {}) };
}

export function openaiUsageChunk(shape: OpenAIShape, identity: AnswerIdentity, usage: Usage): object {
  return { id: identity.id, object: objectName(shape, true), created: identity.created, model: identity.model, choices: [], usage: openaiUsage(usage) };
}

const sseData = (value: object): string => `data: ${JSON.stringify(value)}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * Canonical events → OpenAI chunks, each written as it comes. Chat opens with the role chunk
 * (`{role:'assistant', content:''}`); text, tool-call starts and argument pieces follow; the finish reason
 * comes alone in an empty delta; at the end the usage chunk (`choices: []`, when asked for) and `[DONE]`.
 * Reasoning has no place in either shape and is left out, as before. With `fanOut` the choice is numbered
 * `fanOut.index` and the end is left to `openaiFanOutTail`.
 */
export function createOpenAIStreamEncoder(shape: OpenAIShape, request: CanonicalRequest, fanOut?: { index: number; of: number }): StreamEncoder {
  const withUsage = request.includeUsage === true;
  const choiceIndex = fanOut?.index ?? 0;
  let identity: AnswerIdentity | undefined;
  let roleSent = shape !== 'chat';
  let finished = false;
  let usage: Usage | undefined;
  /** Where the next token starts in the whole answer, for a completion's `text_offset`. */
  let textOffset = 0;
  const identityNow = (): AnswerIdentity => (identity ??= { id: newAnswerId(shape), created: nowInSeconds(), model: request.model });
  const chunk = (content: ChunkContent): string => {
    const withRole = !roleSent;
    roleSent = true;
    return sseData(openaiChunk(shape, identityNow(), { ...content, withRole, ...(withRole && content.text === undefined && !content.toolCalls ? { text: '' } : {}) }, withUsage, choiceIndex));
  };
  /**
   * A tool call that arrives whole (start, its arguments in one piece, end: Gemini's functionCall, a held
   * answer) goes out as one chunk carrying id, name and arguments, as OpenAI sends such a call. So a call's
   * start and first piece wait for the event after them: the call's end sends the one chunk; anything else
   * sends them as they came (the start with arguments '', then the piece) before that event.
   */
  let held: { start: Extract<CanonicalEvent, { type: 'tool_call_start' }>; args?: string } | undefined;
  const toolCallStart = (start: Extract<CanonicalEvent, { type: 'tool_call_start' }>, args: string): string =>
    chunk({ toolCalls: [{ index: start.index, id: start.id, type: 'function', function: { name: start.name, arguments: args } }] });
  const release = (): string => {
    if (!held) return '';
    const { start, args } = held;
    held = undefined;
    return toolCallStart(start, '') + (args ? chunk({ toolCalls: [{ index: start.index, function: { arguments: args } }] }) : '');
  };

  const write = (event: CanonicalEvent): string => {
    if (held && 'index' in event && event.index === held.start.index) {
      if (event.type === 'tool_call_delta' && held.args === undefined) {
        held.args = event.arguments;
        return '';
      }
      if (event.type === 'tool_call_end') {
        const { start, args } = held;
        held = undefined;
        return toolCallStart(start, args ?? '');
      }
    }
    const before = release();
    if (event.type === 'tool_call_start' && shape === 'chat') {
      held = { start: event };
      return before;
    }
    return before + writeNow(event);
  };

  const writeNow = (event: CanonicalEvent): string => {
    switch (event.type) {
      case 'start':
        identity ??= { id: event.id || newAnswerId(shape), created: nowInSeconds(), model: event.model || request.model };
        // A chat stream names the role at once; a text completion has nothing to say yet.
        return roleSent ? '' : chunk({ text: '' });
      case 'text':
        return event.text === '' ? '' : chunk({ text: event.text });
      case 'tool_call_delta':
        return shape === 'chat' && event.arguments !== '' ? chunk({ toolCalls: [{ index: event.index, function: { arguments: event.arguments } }] }) : '';
      case 'logprobs': {
        if (!event.tokens.length) return '';
        const logprobs = openaiLogprobs(shape, event.tokens, textOffset);
        for (const token of event.tokens) textOffset += token.token.length;
        return chunk({ logprobs, ...(shape === 'completions' ? { text: '' } : {}) });
      }
      case 'usage':
        usage = event.usage;
        return '';
      case 'finish':
        if (finished) return '';
        finished = true;
        return chunk({ finishReason: openaiFinishReason(event.reason, shape), ...(shape === 'completions' ? { text: '' } : {}) });
      // Reasoning, its signatures, a tool call's start in a completion and a tool call's end have no chunk of their own.
      default:
        return '';
    }
  };

  return {
    onEvent: write,
    onEnd(): string {
      const held = release();
      if (fanOut) return held;
      return held + (withUsage ? sseData(openaiUsageChunk(shape, identityNow(), usage ?? { inputTokens: 0, outputTokens: 0 })) : '') + SSE_DONE;
    },
    onError(error: GatewayError): string {
      // The contract's error shape; no [DONE] after it, so a client knows the answer failed.
      return release() + sseData(error.toBody());
    },
  };
}

/** The end of a fanned-out stream: one usage chunk summed over the n calls (when asked for), then `[DONE]`. */
export function openaiFanOutTail(shape: OpenAIShape, request: CanonicalRequest, usage: Usage | undefined): string {
  const usageChunk = request.includeUsage === true && usage ? sseData({ id: '', object: objectName(shape, true), created: nowInSeconds(), model: request.model, choices: [], usage: openaiUsage(usage) }) : '';
  return usageChunk + SSE_DONE;
}

// ---- The codecs -------------------------------------------------------------------------------------------------

export const openaiChatDialect: DialectCodec = {
  dialect: 'openai-chat',
  decodeRequest: decodeChatRequest,
  encodeResponse: (answer) => encodeOpenAIAnswer('chat', answer),
  createStreamEncoder: (request, fanOut) => createOpenAIStreamEncoder('chat', request, fanOut),
  fanOutTail: (request, usage) => openaiFanOutTail('chat', request, usage),
  errorBody: (error) => error.toBody(),
};

export const openaiChatProvider: ProviderCodec = {
  format: 'openai-chat',
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  createStreamDecoder: createChatStreamDecoder,
};

