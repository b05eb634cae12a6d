// OpenAI's function calling, read once into plain data for providers that have their own (Anthropic's
// tool_use blocks): the declared tools, the tool choice, and a conversation whose turns may hold tool
// calls and tool results next to text.
import { randomUUID } from 'node:crypto';
import { invalidRequest, unsupportedField } from '../errors.js';
import type { ChatRequest, CompletionRequest } from '../validate.js';
import { emptyMessage, hasText, noConversation, promptTurnText } from './conversation.js';
import { asRecord, asString } from './openai-shape.js';
import type { ProviderCall } from './types.js';

export interface FunctionTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = { mode: 'auto' | 'none' | 'required' } | { mode: 'function'; name: string };

export interface ToolRequest {
  tools: FunctionTool[];
  choice?: ToolChoice;
  /** `parallel_tool_calls: false` asks for at most one call per turn. */
  parallel: boolean;
}

/** An image from an `image_url` part: inline bytes from a data: URL, or a web address. */
export type ImageSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

export type TurnPart =
  | { kind: 'text'; text: string }
  | { kind: 'image'; source: ImageSource }
  | { kind: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { kind: 'tool_result'; callId: string; name: string; text: string };

export interface ToolTurn {
  role: 'user' | 'assistant';
  /** Never empty; text parts are never blank (see `hasText`). */
  parts: TurnPart[];
  /** Index of the chat message the turn starts with (absent for a completion's prompt). */
  message?: number;
}

export interface ToolConversation {
  system: string[];
  turns: ToolTurn[];
}

/** An OpenAI tool call as answers and chunks carry it. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function readToolChoice(value: unknown, provider: string): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { mode: value };
  const choice = asRecord(value);
  const name = asString(asRecord(choice.function).name);
  if (choice.type === 'function' && name) return { mode: 'function', name };
  throw unsupportedField('tool_choice', provider, `${JSON.stringify(value)} is not supported`);
}

/** The tools of a chat request, or undefined when it declares none. */
export function readToolRequest(body: ChatRequest, provider: string): ToolRequest | undefined {
  const raw = (body as Record<string, unknown>).tools;
  const choice = readToolChoice((body as Record<string, unknown>).tool_choice, provider);
  if (raw === undefined || raw === null) {
    if (choice && choice.mode !== 'none' && choice.mode !== 'auto') throw invalidRequest("'tool_choice' needs 'tools'", 'tool_choice');
    return undefined;
  }
  if (!Array.isArray(raw)) throw invalidRequest("'tools' must be an array", 'tools');
  const tools = raw.map((entry, index): FunctionTool => {
    const tool = asRecord(entry);
    if (tool.type !== 'function') throw unsupportedField(`tools[${index}]`, provider, `of type '${String(tool.type)}' is not supported`);
    const fn = asRecord(tool.function);
    const name = asString(fn.name);
    if (!name) throw invalidRequest(`'tools[${index}].function.name' is required`, 'tools');
    const description = asString(fn.description);
    const parameters = fn.parameters === undefined ? { type: 'object', properties: {} } : asRecord(fn.parameters);
    return { name, ...(description ? { description } : {}), parameters };
  });
  return { tools, choice, parallel: (body as Record<string, unknown>).parallel_tool_calls !== false };
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

/** Text and image parts of a message; `images` says whether this message may carry images. */
function contentParts(content: ChatRequest['messages'][number]['content'], where: string, provider: string, images: boolean): TurnPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return hasText(content) ? [{ kind: 'text', text: content }] : [];
  return content.flatMap((part, index): TurnPart[] => {
    if (part.type === 'text' && typeof part.text === 'string') {
      // Blank text says nothing, and Anthropic, Bedrock and Gemini refuse it.
      return hasText(part.text) ? [{ kind: 'text', text: part.text }] : [];
    }
    if (part.type === 'image_url' && images) return [{ kind: 'image', source: imageSource(part, `${where}.content[${index}]`) }];
    throw unsupportedField(`${where}.content[${index}]`, provider, `of type '${part.type}' is not supported`);
  });
}

const textsOf = (parts: TurnPart[]): string[] => parts.flatMap((part) => (part.kind === 'text' ? [part.text] : []));

function readToolCalls(value: unknown, where: string, provider: string): TurnPart[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest(`'${where}.tool_calls' must be an array`, 'messages');
  return value.map((entry, index): TurnPart => {
    const call = asRecord(entry);
    if (call.type !== undefined && call.type !== 'function') throw unsupportedField(`${where}.tool_calls[${index}]`, provider, `of type '${String(call.type)}' is not supported`);
    const fn = asRecord(call.function);
    const id = asString(call.id);
    const name = asString(fn.name);
    if (!id || !name) throw invalidRequest(`'${where}.tool_calls[${index}]' needs an id and a function name`, 'messages');
    let args: unknown;
    try {
      args = JSON.parse(asString(fn.arguments) ?? '{}');
    } catch {
      throw invalidRequest(`'${where}.tool_calls[${index}].function.arguments' is not valid JSON`, 'messages');
    }
    return { kind: 'tool_call', id, name, arguments: asRecord(args) };
  });
}

/**
 * The chat messages with tool calls and tool results kept: an assistant's `tool_calls` become tool-call
 * parts of its turn; `tool` messages become tool-result parts of a user turn (consecutive results share
 * one turn, since a provider expects every result of a turn together). Blank text is dropped; an
 * assistant message left with neither text nor calls is dropped; a user message left with nothing, or a
 * chat with no turn at all, is refused (400 naming the field).
 */
export function toolConversation(messages: ChatRequest['messages'], provider: string): ToolConversation {
  const conversation: ToolConversation = { system: [], turns: [] };
  const toolNames = new Map<string, string>();
  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    for (const field of ['function_call', 'name'] as const) {
      if (message[field] !== undefined && message[field] !== null) throw unsupportedField(`${where}.${field}`, provider);
    }
    // Only a user's message may show the model an image, as in OpenAI's API.
    const parts = contentParts(message.content, where, provider, message.role === 'user');
    switch (message.role) {
      case 'system':
      case 'developer':
        conversation.system.push(...textsOf(parts));
        return;
      case 'user':
        if (parts.length === 0) throw emptyMessage(where, provider);
        conversation.turns.push({ role: 'user', parts, message: index });
        return;
      case 'assistant': {
        const calls = readToolCalls(message.tool_calls, where, provider);
        for (const call of calls) if (call.kind === 'tool_call') toolNames.set(call.id, call.name);
        if (parts.length + calls.length) conversation.turns.push({ role: 'assistant', parts: [...parts, ...calls], message: index });
        return;
      }
      case 'tool': {
        const callId = asString(message.tool_call_id);
        const name = callId ? toolNames.get(callId) : undefined;
        if (!callId || !name) throw invalidRequest(`'${where}.tool_call_id' must name a tool call of an earlier assistant message`, 'messages');
        const result: TurnPart = { kind: 'tool_result', callId, name, text: textsOf(parts).join('') };
        const previous = conversation.turns.at(-1);
        if (previous?.role === 'user' && previous.parts.length > 0 && previous.parts.every((part) => part.kind === 'tool_result')) previous.parts.push(result);
        else conversation.turns.push({ role: 'user', parts: [result], message: index });
        return;
      }
      default:
        throw unsupportedField(`${where}.role`, provider, `'${message.role}' is not supported`);
    }
  });
  if (conversation.turns.length === 0) throw noConversation(provider);
  return conversation;
}

/** The conversation of either endpoint, tools kept: a completion's prompt becomes one user turn. */
export function conversationWithTools(call: ProviderCall, provider: string): ToolConversation {
  if (call.endpoint === 'chat') return toolConversation((call.body as ChatRequest).messages, provider);
  return { system: [], turns: [{ role: 'user', parts: [{ kind: 'text', text: promptTurnText((call.body as CompletionRequest).prompt, provider) }] }] };
}

/** Tool calls the provider made without an id of its own (Gemini) get one, as OpenAI's always have. */
export const newToolCallId = (): string => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
