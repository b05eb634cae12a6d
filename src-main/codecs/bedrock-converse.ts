// Amazon Bedrock's Converse API: a canonical request becomes a Converse / ConverseStream body (the model
// goes in the URL), and an answer or a ConverseStream of AWS event-stream frames becomes canonical events.
import { randomUUID } from 'node:crypto';
import { invalidRequest, unsupportedField, type ErrorType } from '../core/errors.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';
import { COMPLETION_BOUNDS } from '../core/spec-bounds.js';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  assistantFirst,
  cannotHonour,
  emptyUserTurn,
  fieldName,
  toolArgumentsObject,
  foldEvents,
  type CanonicalAnswer,
  type CanonicalEvent,
  type CanonicalRequest,
  type EncodedRequest,
  type EncodeTarget,
  type FinishReason,
  type ImagePart,
  type ProviderCodec,
  type ReasoningEffort,
  type StreamDecoder,
  type ToolResultContent,
  type Turn,
  type Usage,
  type UpstreamEvent,
} from './canonical.js';

type Block = Record<string, unknown>;

interface ConverseMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Converse's `requestMetadata` values must match this (Bedrock runtime model, RequestMetadataValueString). */
const REQUEST_METADATA_VALUE = /^[a-zA-Z0-9\s:_@$#=/+,.-]{0,256}$/;

/** The image formats ImageBlock takes, by media type. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** The name of the conversation field in the client's dialect (`messages`, `input`, `prompt`). */
const turnsField = (request: CanonicalRequest): string => fieldName(request, 'turns');

/** Converse refuses text blocks that are empty or only white space. */
const isBlank = (text: string): boolean => text.trim() === '';

function imageBlock(part: ImagePart, request: CanonicalRequest, target: EncodeTarget): Block {
  if (part.source.kind !== 'base64') throw unsupportedField(turnsField(request), target.provider, 'with an image given by URL is not supported (send it as a base64 data: URL)');
  const format = IMAGE_FORMATS[part.source.mediaType.toLowerCase()];
  if (!format) throw unsupportedField(turnsField(request), target.provider, `with an image of type '${part.source.mediaType}' is not supported (png, jpeg, gif or webp)`);
  return { image: { format, source: { bytes: part.source.data } } };
}

function toolResultContent(content: ToolResultContent, isError: boolean, request: CanonicalRequest, target: EncodeTarget): Block[] {
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  const blocks = parts.flatMap((part): Block[] => (part.type === 'text' ? (isBlank(part.text) ? [] : [{ text: part.text }]) : [imageBlock(part, request, target)]));
  // A failed result must say something.
  if (isError && blocks.length === 0) blocks.push({ text: 'error' });
  return blocks;
}

/**
 * The conversation as Converse messages: starting with the user, strictly alternating (consecutive turns
 * of one role merged, tool results first in theirs), no empty or blank blocks, every tool result answering
 * a tool use of the assistant turn before it. System turns in the middle join the system blocks.
 */
function converseMessages(request: CanonicalRequest, target: EncodeTarget): { messages: ConverseMessage[]; system: string[]; firstTurn?: Turn } {
  const system = request.system.flatMap((part) => (isBlank(part.text) ? [] : [part.text]));
  // Each message's tool results and other blocks are gathered apart and joined once at the end: merging a
  // turn into the message before it is then two appends, not a search of the message (quadratic over a
  // run of one-result turns, which is how Chat sends the results of parallel tool calls).
  const merged: { role: ConverseMessage['role']; results: Block[]; blocks: Block[] }[] = [];
  /** The turn that opened the conversation, for naming it when it is the assistant's. */
  let firstTurn: Turn | undefined;
  for (const turn of request.turns) {
    if (turn.role === 'system') {
      for (const part of turn.parts) if (part.type === 'text' && !isBlank(part.text)) system.push(part.text);
      continue;
    }
    const results: Block[] = [];
    const blocks: Block[] = [];
    for (const part of turn.parts) {
      switch (part.type) {
        case 'text':
          if (!isBlank(part.text)) blocks.push({ text: part.text });
          break;
        case 'image':
          blocks.push(imageBlock(part, request, target));
          break;
        case 'reasoning':
          // Thinking goes back only as the model gave it: signed, or redacted.
          if (turn.role !== 'assistant') break;
          if (part.encrypted) blocks.push({ reasoningContent: { redactedContent: part.encrypted } });
          else if (part.signature) blocks.push({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } });
          break;
        case 'tool_call':
          if (turn.role !== 'assistant') throw invalidRequest(`A tool call in '${turnsField(request)}' must be in an assistant turn`, turnsField(request));
          blocks.push({ toolUse: { toolUseId: part.id, name: part.name, input: toolArgumentsObject(part.arguments, request) } });
          break;
        case 'tool_result':
          if (turn.role !== 'user') throw invalidRequest(`A tool result in '${turnsField(request)}' must be in a user turn`, turnsField(request));
          results.push({ toolResult: { toolUseId: part.callId, content: toolResultContent(part.content, part.isError === true, request, target), ...(part.isError ? { status: 'error' } : {}) } });
          break;
      }
    }
    if (results.length === 0 && blocks.length === 0) {
      // Converse refuses an empty user message; an assistant's with nothing in it is left out.
      if (turn.role === 'user') throw emptyUserTurn(request, turn, target.provider);
      continue;
    }
    firstTurn ??= turn;
    const previous = merged.at(-1);
    if (previous?.role === turn.role) {
      for (const block of results) previous.results.push(block);
      for (const block of blocks) previous.blocks.push(block);
    } else {
      merged.push({ role: turn.role, results, blocks });
    }
  }
  const messages = merged.map(({ role, results, blocks }): ConverseMessage => ({ role, content: results.concat(blocks) }));
  checkToolResults(messages, request);
  return { messages, system, firstTurn };
}

/** Converse wants each assistant turn's tool uses answered, all and only them, in the user turn right after. */
function checkToolResults(messages: ConverseMessage[], request: CanonicalRequest): void {
  const field = turnsField(request);
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    const previous = messages[index - 1];
    const asked = new Set((previous?.content ?? []).flatMap((block) => ('toolUse' in block ? [String(asRecord(block.toolUse).toolUseId)] : [])));
    const answered = message.content.flatMap((block) => ('toolResult' in block ? [String(asRecord(block.toolResult).toolUseId)] : []));
    const unknown = answered.find((id) => !asked.has(id));
    if (unknown !== undefined) throw invalidRequest(`A tool result in '${field}' answers the call '${unknown}', which the assistant turn before it did not make`, field);
    const answeredIds = new Set(answered);
    const missing = [...asked].find((id) => !answeredIds.has(id));
    if (missing !== undefined) throw invalidRequest(`The tool call '${missing}' in '${field}' has no result in the user turn after it`, field);
  });
}

const toolNamesOf = (messages: ConverseMessage[]): string[] => [
  ...new Set(messages.flatMap((message) => message.content.flatMap((block) => ('toolUse' in block ? [String(asRecord(block.toolUse).name)] : [])))),
];

/**
 * Tools as toolSpecs and the choice as auto / any / tool. Converse has no "none": with no tool blocks in
 * the conversation, leaving the tools out honours it; otherwise it needs the tools declared. Tool blocks
 * in the conversation need a toolConfig even when the request declares no tools: they are declared from
 * their names then.
 */
function toolConfig(request: CanonicalRequest, target: EncodeTarget, dropped: string[], messages: ConverseMessage[]): Record<string, unknown> | undefined {
  const used = toolNamesOf(messages);
  const usesTools = messages.some((message) => message.content.some((block) => 'toolUse' in block || 'toolResult' in block));
  const choice = request.toolChoice;
  const declared = request.tools ?? [];
  if (choice?.mode === 'none') {
    if (!usesTools) return undefined;
    cannotHonour(request, target, dropped, 'toolChoice', "'none' is not supported once the conversation holds tool calls");
  }
  const tools = declared.map((tool) => ({ toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json: tool.parameters } } }));
  for (const name of used) if (!declared.some((tool) => tool.name === name)) tools.push({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } });
  if (tools.length === 0) return undefined;
  const toolChoice = choice?.mode === 'required' ? { any: {} } : choice?.mode === 'tool' ? { tool: { name: choice.name } } : choice?.mode === 'auto' ? { auto: {} } : undefined;
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}

/** Claude's thinking budgets for an effort level (1,024 is the least Claude takes). */
const EFFORT_BUDGET: Record<ReasoningEffort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768 };

/** Reasoning on Bedrock is model-specific: Claude takes `thinking` in additionalModelRequestFields. */
function reasoningFields(request: CanonicalRequest, target: EncodeTarget, dropped: string[]): Record<string, unknown> {
  const reasoning = request.reasoning;
  if (!reasoning?.enabled) return {};
  if (!/anthropic\.claude/.test(request.model)) {
    cannotHonour(request, target, dropped, 'reasoning', 'is not supported for this model through Converse');
    return {};
  }
  const budget = reasoning.budgetTokens ?? EFFORT_BUDGET[reasoning.effort ?? 'medium'];
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

function encodeRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
  const dropped: string[] = [];
  const { messages, system, firstTurn } = converseMessages(request, target);
  const field = turnsField(request);
  if (messages.length === 0) {
    // A prompt of token IDs (or several prompts) leaves no turns: its refusal says more than "no messages".
    for (const name of Object.keys(request.extensions)) cannotHonour(request, target, [], name);
    throw invalidRequest(`'${field}' must hold at least one user or assistant message: provider '${target.provider}' cannot answer system instructions alone`, field);
  }
  if (messages[0].role !== 'user') throw assistantFirst(request, firstTurn!, target.provider);

  const body: Record<string, unknown> = { messages };
  if (target.modelInBody) body.modelId = request.model;
  if (system.length) body.system = system.map((text) => ({ text }));

  // A legacy completion without max_tokens means 16 (OpenAI's default); elsewhere the model's default applies.
  const maxTokens = request.maxOutputTokens ?? (request.dialect === 'openai-completions' ? COMPLETION_BOUNDS.max_tokens.default : undefined);
  const inferenceConfig: Record<string, unknown> = {};
  if (maxTokens !== undefined) inferenceConfig.maxTokens = maxTokens;
  if (request.temperature !== undefined) inferenceConfig.temperature = request.temperature;
  if (request.topP !== undefined) inferenceConfig.topP = request.topP;
  if (request.stop?.length) inferenceConfig.stopSequences = request.stop;
  if (Object.keys(inferenceConfig).length) body.inferenceConfig = inferenceConfig;

  const tools = toolConfig(request, target, dropped, messages);
  if (tools) body.toolConfig = tools;
  if (request.parallelToolCalls === false) cannotHonour(request, target, dropped, 'parallelToolCalls');

  // Model-specific parameters travel in additionalModelRequestFields (Claude and Mistral take top_k; other
  // models answer with their own ValidationException, which is relayed).
  const additional: Record<string, unknown> = { ...(request.topK !== undefined ? { top_k: request.topK } : {}), ...reasoningFields(request, target, dropped) };
  if (Object.keys(additional).length) body.additionalModelRequestFields = additional;

  if (request.user !== undefined) {
    if (REQUEST_METADATA_VALUE.test(request.user)) body.requestMetadata = { user: request.user };
    else cannotHonour(request, target, dropped, 'user', "with characters outside Bedrock's request metadata pattern (letters, digits, spaces and :_@$#=/+,.- ; at most 256) is not supported");
  }
  if (request.seed !== undefined) cannotHonour(request, target, dropped, 'seed');
  // A penalty of 0 is no penalty: nothing is lost.
  if (request.presencePenalty) cannotHonour(request, target, dropped, 'presencePenalty');
  if (request.frequencyPenalty) cannotHonour(request, target, dropped, 'frequencyPenalty');
  if (request.logprobs) cannotHonour(request, target, dropped, 'logprobs', 'is not supported (the provider returns no log probabilities)');
  if (request.responseFormat && request.responseFormat.type !== 'text') cannotHonour(request, target, dropped, 'responseFormat', `of type '${request.responseFormat.type}' is not supported`);
  for (const name of Object.keys(request.extensions)) cannotHonour(request, target, dropped, name);
  return { body, dropped };
}

// ---- Answers ------------------------------------------------------------------------------------------

/** Converse stop reasons → canonical finish reasons. */
export function mapStopReason(stopReason: string | undefined): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'tool_use':
      return 'tool_calls';
    case 'stop_sequence':
      return 'stop_sequence';
    default:
      // end_turn, and reasons added later.
      return 'stop';
  }
}

/** Cached prompt tokens are reported apart from `inputTokens`; canonical input counts them all. */
export function usageOf(value: unknown): Usage {
  const figures = asRecord(value);
  const cacheRead = asNumber(figures.cacheReadInputTokens);
  const cacheWrite = asNumber(figures.cacheWriteInputTokens);
  const usage: Usage = { inputTokens: asNumber(figures.inputTokens) + cacheRead + cacheWrite, outputTokens: asNumber(figures.outputTokens) };
  if (typeof figures.cacheReadInputTokens === 'number') usage.cacheReadTokens = cacheRead;
  if (typeof figures.cacheWriteInputTokens === 'number') usage.cacheWriteTokens = cacheWrite;
  return usage;
}

/** Converse answers carry no id: one is made per answer. */
const answerId = (): string => `bedrock-${randomUUID()}`;

function reasoningEvents(value: unknown): CanonicalEvent[] {
  const reasoning = asRecord(value);
  const redacted = asString(reasoning.redactedContent);
  if (redacted !== undefined) return [{ type: 'reasoning_encrypted', data: redacted }];
  const text = asRecord(reasoning.reasoningText);
  const events: CanonicalEvent[] = [];
  if (asString(text.text)) events.push({ type: 'reasoning', text: asString(text.text)! });
  if (asString(text.signature)) events.push({ type: 'reasoning_signature', signature: asString(text.signature)! });
  return events;
}

function decodeResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const answer = asRecord(json);
  const events: CanonicalEvent[] = [{ type: 'start', id: answerId(), model: request.model }];
  let toolIndex = 0;
  for (const value of asArray(asRecord(asRecord(answer.output).message).content)) {
    const block = asRecord(value);
    const text = asString(block.text);
    if (text !== undefined) {
      if (text) events.push({ type: 'text', text });
    } else if (block.toolUse !== undefined) {
      const toolUse = asRecord(block.toolUse);
      const index = toolIndex++;
      events.push({ type: 'tool_call_start', index, id: asString(toolUse.toolUseId) ?? answerId(), name: asString(toolUse.name) ?? '' });
      events.push({ type: 'tool_call_delta', index, arguments: JSON.stringify(toolUse.input ?? {}) });
      events.push({ type: 'tool_call_end', index });
    } else if (block.reasoningContent !== undefined) {
      events.push(...reasoningEvents(block.reasoningContent));
    }
  }
  if (answer.usage !== undefined) events.push({ type: 'usage', usage: usageOf(answer.usage) });
  events.push({ type: 'finish', reason: mapStopReason(asString(answer.stopReason)) });
  return foldEvents(events, { id: answerId(), model: request.model });
}

const EXCEPTION_TYPES: Readonly<Record<string, ErrorType>> = {
  validationException: 'invalid_request_error',
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'api_error',
  internalServerException: 'api_error',
  modelStreamErrorException: 'api_error',
};

function payloadJson(payload: Uint8Array, provider: string): Record<string, unknown> {
  if (payload.length === 0) return {};
  try {
    return asRecord(JSON.parse(Buffer.from(payload).toString('utf8')));
  } catch {
    throw new ProviderStreamError(`Provider '${provider}' sent a stream event that is not JSON`, 'gateway_error', 'bad_provider_response');
  }
}

/**
 * Reads ConverseStream's frames: messageStart, then per content block contentBlockStart (a tool use's id
 * and name) / contentBlockDelta (text, tool input as JSON text, reasoning) / contentBlockStop, then
 * messageStop (the stop reason) and metadata (usage). Exception frames end the stream with an error.
 */
function createStreamDecoder(request: CanonicalRequest): StreamDecoder {
  const provider = 'bedrock';
  let started = false;
  /** messageStop's reason, until the metadata frame right after it brings the usage. */
  let stopReason: FinishReason | undefined;
  let finished = false;
  const finish = (): CanonicalEvent[] => {
    if (stopReason === undefined || finished) return [];
    finished = true;
    return [{ type: 'finish', reason: stopReason }];
  };
  /** Content block index → tool call index, for the blocks that are tool uses. */
  const toolBlocks = new Map<number, number>();
  let toolCount = 0;
  const start = (): CanonicalEvent[] => {
    if (started) return [];
    started = true;
    return [{ type: 'start', id: answerId(), model: request.model }];
  };
  return {
    framing: 'aws-eventstream',
    onEvent(event: UpstreamEvent): CanonicalEvent[] {
      if (event.kind !== 'frame') return [];
      const messageType = event.headers[':message-type'];
      if (messageType === 'exception') {
        const exceptionType = String(event.headers[':exception-type'] ?? 'exception');
        const details = payloadJson(event.payload, provider);
        const message = asString(details.message) ?? asString(details.Message) ?? `Bedrock stream failed (${exceptionType})`;
        throw new ProviderStreamError(message, EXCEPTION_TYPES[exceptionType] ?? 'api_error', exceptionType);
      }
      if (messageType === 'error') {
        const code = String(event.headers[':error-code'] ?? 'error');
        throw new ProviderStreamError(String(event.headers[':error-message'] ?? `Bedrock stream failed (${code})`), 'api_error', code);
      }
      // Payloads may carry a padding field `p`; only the named fields are read.
      const payload = payloadJson(event.payload, provider);
      const blockIndex = asNumber(payload.contentBlockIndex);
      switch (event.headers[':event-type']) {
        case 'messageStart':
          return start();
        case 'contentBlockStart': {
          const toolUse = asRecord(asRecord(payload.start).toolUse);
          if (asString(toolUse.toolUseId) === undefined) return start();
          const index = toolCount++;
          toolBlocks.set(blockIndex, index);
          return [...start(), { type: 'tool_call_start', index, id: asString(toolUse.toolUseId)!, name: asString(toolUse.name) ?? '' }];
        }
        case 'contentBlockDelta': {
          const delta = asRecord(payload.delta);
          const events = start();
          const text = asString(delta.text);
          if (text) events.push({ type: 'text', text });
          const toolIndex = toolBlocks.get(blockIndex);
          const input = asString(asRecord(delta.toolUse).input);
          if (input && toolIndex !== undefined) events.push({ type: 'tool_call_delta', index: toolIndex, arguments: input });
          if (delta.reasoningContent !== undefined) {
            const reasoning = asRecord(delta.reasoningContent);
            if (asString(reasoning.text)) events.push({ type: 'reasoning', text: asString(reasoning.text)! });
            if (asString(reasoning.signature)) events.push({ type: 'reasoning_signature', signature: asString(reasoning.signature)! });
            if (asString(reasoning.redactedContent)) events.push({ type: 'reasoning_encrypted', data: asString(reasoning.redactedContent)! });
          }
          return events;
        }
        case 'contentBlockStop': {
          const toolIndex = toolBlocks.get(blockIndex);
          if (toolIndex === undefined) return [];
          toolBlocks.delete(blockIndex);
          return [{ type: 'tool_call_end', index: toolIndex }];
        }
        case 'messageStop':
          // The finish waits for the metadata frame that follows at once, so that usage comes before it.
          stopReason = mapStopReason(asString(payload.stopReason));
          return start();
        case 'metadata':
          return [...(payload.usage === undefined ? [] : [{ type: 'usage' as const, usage: usageOf(payload.usage) }]), ...finish()];
        default:
          // Event types added later.
          return [];
      }
    },
    onEnd(): CanonicalEvent[] {
      if (stopReason === undefined) throw new ProviderStreamError('The provider stream ended before messageStop', 'api_error', 'stream_incomplete');
      return finish();
    },
  };
}

export const bedrockConverseProvider: ProviderCodec = {
  format: 'bedrock-converse',
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
};
