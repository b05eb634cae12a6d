// A canonical request → a Chat Completions body for a provider (OpenAI-compatible servers, Ollama, Groq, Azure …).
import { invalidRequest, unsupportedField } from '../../core/errors.js';
import {
  cannotHonour,
  fieldName,
  joinText,
  toolResultText,
  type CanonicalRequest,
  type EncodedRequest,
  type EncodeTarget,
  type ImagePart,
  type ImageSource,
  type ReasoningEffort,
  type ResponseFormat,
  type TextPart,
  type ToolCallPart,
  type ToolChoice,
} from '../canonical.js';

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
