// Turns an OpenAI completion or chat request into a provider-neutral conversation (system text plus
// user/assistant turns) for providers that only have a chat API, and refuses, with the contract's 400,
// every field such a provider cannot honour instead of dropping it.
import { invalidRequest, unsupportedField, type GatewayError } from '../errors.js';
import type { ChatRequest, CompletionRequest } from '../validate.js';
import type { Endpoint, ProviderCall } from './types.js';

export interface ConversationTurn {
  role: 'user' | 'assistant';
  /** Text parts in order; a plain string content is one part. Never blank (see `hasText`). */
  parts: string[];
  /** Index of the chat message this turn came from (absent for a completion's prompt). */
  message?: number;
}

export interface Conversation {
  /** System and developer messages, in order. */
  system: string[];
  turns: ConversationTurn[];
}

/** Fields every chat-only adapter maps (or the core handles: `n` by fan-out, `stream_options` in the translators). */
const ALWAYS_HANDLED = new Set(['model', 'max_tokens', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'n']);
const COMPLETION_HANDLED = new Set(['prompt']);
const CHAT_HANDLED = new Set(['messages', 'max_completion_tokens']);

/** Values equal to OpenAI's default change nothing, so sending them to a provider without the field is no loss. */
function isDefaultValue(field: string, value: unknown): boolean {
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
      return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'text';
    default:
      return false;
  }
}

const REFUSAL_REASONS: Readonly<Record<string, string>> = {
  best_of: 'greater than 1 is not supported',
  echo: 'is not supported',
  logprobs: 'is not supported (the provider returns no log probabilities)',
  top_logprobs: 'is not supported (the provider returns no log probabilities)',
};

/**
 * Refuses any field that is set to something other than its default and that neither this module nor
 * the provider (`providerFields`) handles: `tools`, `response_format`, `logit_bias`, `best_of` ...
 */
export function refuseUnsupportedFields(
  body: CompletionRequest | ChatRequest,
  provider: string,
  providerFields: ReadonlySet<string>,
  // Without it, a body with a `prompt` (required by the completion schema) is taken for a completion.
  endpoint: Endpoint = 'prompt' in body ? 'completions' : 'chat',
): void {
  // A completion's `messages` or a chat's `prompt` would go unread: refused like any other field.
  const endpointFields = endpoint === 'chat' ? CHAT_HANDLED : COMPLETION_HANDLED;
  for (const [field, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    if (ALWAYS_HANDLED.has(field) || endpointFields.has(field) || providerFields.has(field) || isDefaultValue(field, value)) continue;
    throw unsupportedField(field, provider, REFUSAL_REASONS[field]);
  }
}

function refusePrompt(provider: string, why: string): GatewayError {
  return unsupportedField('prompt', provider, why);
}

/** The single text prompt of a completion request; a chat-only API has nowhere to put several or token IDs. */
export function promptText(prompt: CompletionRequest['prompt'], provider: string): string {
  if (typeof prompt === 'string') return prompt;
  if (prompt === null || prompt.length === 0) {
    throw refusePrompt(provider, 'left empty (generate from the start of a new document) is not supported');
  }
  if (prompt.every((item): item is string => typeof item === 'string')) {
    if (prompt.length === 1) return prompt[0];
    throw refusePrompt(provider, 'as an array of several prompts is not supported (send one request per prompt)');
  }
  throw refusePrompt(provider, 'as token IDs is not supported (send the prompt as text)');
}

/**
 * Text worth sending: Anthropic refuses empty and whitespace-only text blocks, Bedrock blank text
 * blocks, Gemini empty text parts. Blank text says nothing, so it is dropped, never sent.
 */
export const hasText = (text: string): boolean => /\S/.test(text);

/** A user message left with nothing to say: every chat-only provider refuses it, so the client hears why. */
export const emptyMessage = (where: string, provider: string): GatewayError =>
  invalidRequest(`'${where}.content' must not be empty: provider '${provider}' refuses a message with no text`, `${where}.content`);

/** No user or assistant message at all (a system-only chat): nothing for a chat-only provider to answer. */
export const noConversation = (provider: string): GatewayError =>
  invalidRequest(`'messages' must hold at least one user or assistant message with content: provider '${provider}' cannot answer system instructions alone`, 'messages');

/** Anthropic and Bedrock take only conversations that open with the user; the client is told, nothing is made up. */
export function requireUserFirst(turns: readonly { role: 'user' | 'assistant'; message?: number }[], provider: string): void {
  const first = turns[0];
  if (first?.role !== 'assistant') return;
  const where = `messages[${first.message ?? 0}]`;
  throw invalidRequest(`'${where}': provider '${provider}' needs the conversation to start with a user message, and this one starts with an assistant message`, where);
}

/** A completion's prompt as the one user turn; a blank prompt is refused like an empty message. */
export function promptTurnText(prompt: CompletionRequest['prompt'], provider: string): string {
  const text = promptText(prompt, provider);
  if (!hasText(text)) throw invalidRequest(`'prompt' must not be empty: provider '${provider}' answers a conversation and refuses an empty message`, 'prompt');
  return text;
}

function messageParts(content: ChatRequest['messages'][number]['content'], where: string, provider: string): string[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return hasText(content) ? [content] : [];
  return content.flatMap((part, index) => {
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw unsupportedField(`${where}.content[${index}]`, provider, `of type '${part.type}' is not supported`);
    }
    return hasText(part.text) ? [part.text] : [];
  });
}

/**
 * The chat messages as a conversation: system/developer messages apart, assistant and user turns in
 * order. Blank text is dropped; an assistant message left with nothing is dropped (it said nothing); a
 * user message left with nothing, or a chat with no turn at all, is refused.
 */
export function chatConversation(messages: ChatRequest['messages'], provider: string): Conversation {
  const conversation: Conversation = { system: [], turns: [] };
  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    for (const field of ['tool_calls', 'function_call', 'tool_call_id', 'name'] as const) {
      if (message[field] !== undefined && message[field] !== null) throw unsupportedField(`${where}.${field}`, provider);
    }
    const parts = messageParts(message.content, where, provider);
    switch (message.role) {
      case 'system':
      case 'developer':
        conversation.system.push(...parts);
        break;
      case 'user':
        if (parts.length === 0) throw emptyMessage(where, provider);
        conversation.turns.push({ role: 'user', parts, message: index });
        break;
      case 'assistant':
        if (parts.length) conversation.turns.push({ role: 'assistant', parts, message: index });
        break;
      default:
        throw unsupportedField(`${where}.role`, provider, `'${message.role}' is not supported`);
    }
  });
  if (conversation.turns.length === 0) throw noConversation(provider);
  return conversation;
}

/** The conversation of either endpoint: a completion's prompt becomes one user turn. */
export function conversationOf(call: ProviderCall, provider: string): Conversation {
  if (call.endpoint === 'chat') return chatConversation((call.body as ChatRequest).messages, provider);
  return { system: [], turns: [{ role: 'user', parts: [promptTurnText((call.body as CompletionRequest).prompt, provider)] }] };
}

/** `stop` as a list, whichever form the client sent. */
export function stopSequences(stop: CompletionRequest['stop']): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  return typeof stop === 'string' ? [stop] : stop;
}

export function includeUsage(call: ProviderCall): boolean {
  return call.body.stream_options?.include_usage === true;
}

/**
 * `top_k` is not OpenAI's, but Anthropic and Gemini both sample with it and clients of those APIs send
 * it as an extra field; the request schema keeps unknown fields, so it is checked here.
 */
export function topK(body: CompletionRequest | ChatRequest): number | undefined {
  const value = (body as Record<string, unknown>).top_k;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidRequest("'top_k' must be an integer of at least 0", 'top_k');
  return value;
}
