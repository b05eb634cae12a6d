// A Chat Completions client's body → canonical: messages, tools, response format, reasoning effort, log
// probabilities; what some provider may not honour is kept for its encoder to refuse.
import { invalidRequest } from '../../core/errors.js';
import {
  asArray,
  asRecord,
  asString,
  joinText,
  type CanonicalRequest,
  type ImagePart,
  type ImageSource,
  type ReasoningEffort,
  type ResponseFormat,
  type TextPart,
  type ToolCallPart,
  type ToolChoice,
  type ToolDefinition,
  type ToolResultPart,
  type Turn,
} from '../canonical.js';
import { REFUSAL_REASONS, SHARED_FIELDS, Unsupported, keepOtherFields, numberOf, readSharedFields } from './client-fields.js';

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
