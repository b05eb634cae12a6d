// Google's generateContent format, shared by `google` (Gemini API) and Gemini models on `vertex-ai`:
// the request body, the answer, the SSE stream (`alt=sse`, no [DONE]) and the `{error:{code,message,status}}`
// body, each mapped to or from OpenAI's shape.
import { errorTypeForStatus, invalidRequest, unsupportedField } from '../errors.js';
import type { ChatRequest, CompletionRequest } from '../validate.js';
import { includeUsage, refuseUnsupportedFields, stopSequences, topK } from './conversation.js';
import { conversationWithTools, newToolCallId, readToolRequest, type OpenAIToolCall, type ToolRequest, type TurnPart } from './chat-tools.js';
import {
  asRecord,
  asString,
  buildAnswer,
  buildChunk,
  buildUsageChunk,
  nowInSeconds,
  usageOf,
  type AnswerIdentity,
  type FinishReason,
  type OpenAILogprobs,
  type OpenAIUsage,
} from './openai-shape.js';
import { ProviderStreamError, type MappedProviderError, type ProviderCall, type StreamTranslator, type UpstreamEvent } from './types.js';

type GeminiPart =
  | { text: string }
  | { inlineData: { mimeType: string; data: string } }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

interface GeminiTools {
  tools: { functionDeclarations: { name: string; description?: string; parametersJsonSchema: Record<string, unknown> }[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
}

export interface GenerateContentBody extends Partial<GeminiTools> {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    topP?: number;
    topK?: number;
    stopSequences?: string[];
    presencePenalty?: number;
    frequencyPenalty?: number;
    seed?: number;
    responseLogprobs?: boolean;
    logprobs?: number;
    responseMimeType?: string;
    responseJsonSchema?: unknown;
  };
}

/** Fields generateContent honours beyond the common ones. */
const GENERATE_CONTENT_FIELDS: ReadonlySet<string> = new Set(['seed', 'presence_penalty', 'frequency_penalty', 'top_k', 'logprobs', 'top_logprobs', 'response_format']);
/**
 * Chat adds function calling. `parallel_tool_calls: false` has no Gemini equivalent, so it is left out
 * of this list and refused.
 */
const GENERATE_CONTENT_CHAT_FIELDS: ReadonlySet<string> = new Set([...GENERATE_CONTENT_FIELDS, 'tools', 'tool_choice']);

/** A tool's result goes back as an object: JSON the tool returned as is, anything else under `content`. */
function functionResponseOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Plain text.
  }
  return { content: text };
}

/**
 * Gemini 3 refuses a replayed functionCall without the `thoughtSignature` it came with, and an OpenAI
 * client has nowhere to keep one; Google documents this value for history that lost its signatures.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export const needsThoughtSignatures = (model: string): boolean => {
  const major = /^(?:models\/)?gemini-(\d+)/.exec(model)?.[1];
  return major !== undefined && Number(major) >= 3;
};

function geminiPart(part: TurnPart, where: string, provider: string, signFunctionCalls: boolean): GeminiPart {
  switch (part.kind) {
    case 'text':
      return { text: part.text };
    case 'image':
      // fileData takes files uploaded to Google (Files API, Cloud Storage), not any web address.
      if (part.source.kind !== 'base64') throw unsupportedField(where, provider, 'with an image given by URL is not supported (send it as a base64 data: URL)');
      return { inlineData: { mimeType: part.source.mediaType, data: part.source.data } };
    case 'tool_call':
      return { functionCall: { name: part.name, args: part.arguments }, ...(signFunctionCalls ? { thoughtSignature: SKIP_THOUGHT_SIGNATURE } : {}) };
    case 'tool_result':
      return { functionResponse: { name: part.name, response: functionResponseOf(part.text) } };
  }
}

/** OpenAI tools as one Gemini tool of function declarations (JSON Schema kept as JSON Schema), and the choice as functionCallingConfig. */
function geminiTools(request: ToolRequest): GeminiTools {
  const tools = [
    {
      functionDeclarations: request.tools.map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), parametersJsonSchema: tool.parameters })),
    },
  ];
  const choice = request.choice;
  if (!choice) return { tools };
  const functionCallingConfig =
    choice.mode === 'function'
      ? { mode: 'ANY' as const, allowedFunctionNames: [choice.name] }
      : { mode: choice.mode === 'required' ? ('ANY' as const) : choice.mode === 'none' ? ('NONE' as const) : ('AUTO' as const) };
  return { tools, toolConfig: { functionCallingConfig } };
}

/** generationConfig.seed is an int32. */
const INT32_MAX = 2 ** 31 - 1;

/**
 * Log probabilities: a completion's `logprobs: k` and a chat's `logprobs: true` + `top_logprobs: k` both
 * become `responseLogprobs` with `logprobs: k` alternatives per step (none asked for when k is 0).
 */
function logprobsConfig(call: ProviderCall): { responseLogprobs?: boolean; logprobs?: number } {
  if (call.endpoint === 'completions') {
    const count = (call.body as CompletionRequest).logprobs;
    return count == null ? {} : { responseLogprobs: true, ...(count > 0 ? { logprobs: count } : {}) };
  }
  const chat = call.body as ChatRequest;
  if (chat.logprobs !== true) {
    if (chat.top_logprobs) throw invalidRequest("'top_logprobs' needs 'logprobs' set to true", 'top_logprobs');
    return {};
  }
  return { responseLogprobs: true, ...(chat.top_logprobs ? { logprobs: chat.top_logprobs } : {}) };
}

/**
 * Chat's `response_format`: `json_object` asks for JSON output, `json_schema` for JSON that follows the
 * schema (Gemini takes JSON Schema as `responseJsonSchema`); `text` is the default.
 */
function responseFormatConfig(call: ProviderCall, provider: string): { responseMimeType?: string; responseJsonSchema?: unknown } {
  const format = asRecord((call.body as Record<string, unknown>).response_format);
  switch (format.type) {
    case undefined:
    case 'text':
      return {};
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema': {
      const schema = asRecord(format.json_schema).schema;
      if (typeof schema !== 'object' || schema === null) throw invalidRequest("'response_format.json_schema.schema' must be a JSON Schema object", 'response_format');
      return { responseMimeType: 'application/json', responseJsonSchema: schema };
    }
    default:
      throw unsupportedField('response_format', provider, `of type '${String(format.type)}' is not supported`);
  }
}

/**
 * The generateContent body for a completion or chat call. `max_tokens` is sent only when the client
 * names it: Gemini needs no limit, and a made-up 16 would leave thinking models no room to answer.
 */
export function buildGenerateContentBody(call: ProviderCall, provider: string): GenerateContentBody {
  const body = call.body;
  refuseUnsupportedFields(body, provider, call.endpoint === 'chat' ? GENERATE_CONTENT_CHAT_FIELDS : GENERATE_CONTENT_FIELDS, call.endpoint);
  if (body.seed != null && Math.abs(body.seed) > INT32_MAX) {
    throw unsupportedField('seed', provider, 'outside the 32-bit integer range is not supported');
  }
  const conversation = conversationWithTools(call, provider);
  const tools = call.endpoint === 'chat' ? readToolRequest(body as ChatRequest, provider) : undefined;
  const signFunctionCalls = needsThoughtSignatures(body.model);
  const maxTokens = call.endpoint === 'chat' ? ((body as ChatRequest).max_completion_tokens ?? body.max_tokens) : body.max_tokens;
  const stop = stopSequences(body.stop);
  const k = topK(body);
  const generationConfig: NonNullable<GenerateContentBody['generationConfig']> = {
    ...(maxTokens != null ? { maxOutputTokens: maxTokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(k !== undefined ? { topK: k } : {}),
    ...(stop ? { stopSequences: stop } : {}),
    // A penalty of 0 is no penalty; leaving it out spares the models that refuse penalties altogether.
    ...(body.presence_penalty ? { presencePenalty: body.presence_penalty } : {}),
    ...(body.frequency_penalty ? { frequencyPenalty: body.frequency_penalty } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    ...logprobsConfig(call),
    ...(call.endpoint === 'chat' ? responseFormatConfig(call, provider) : {}),
  };
  return {
    contents: conversation.turns.map((turn) => ({ role: turn.role === 'assistant' ? 'model' : 'user', parts: turn.parts.map((part) => geminiPart(part, 'messages', provider, signFunctionCalls)) })),
    ...(tools ? geminiTools(tools) : {}),
    ...(conversation.system.length ? { systemInstruction: { parts: conversation.system.map((text) => ({ text })) } } : {}),
    ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
  };
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

export function mapFinishReason(finishReason: unknown): FinishReason | null {
  if (typeof finishReason !== 'string' || finishReason === '') return null;
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(finishReason)) return 'content_filter';
  // STOP, and LANGUAGE, OTHER, MALFORMED_FUNCTION_CALL, FINISH_REASON_UNSPECIFIED and later values.
  return 'stop';
}

/**
 * `promptTokenCount` already includes cached tokens; thinking tokens are generated tokens, as
 * OpenAI counts reasoning tokens in `completion_tokens`.
 */
export function toOpenAIUsage(usageMetadata: unknown): OpenAIUsage {
  const usage = asRecord(usageMetadata);
  const count = (field: string) => (typeof usage[field] === 'number' ? (usage[field] as number) : 0);
  return usageOf(count('promptTokenCount') + count('toolUsePromptTokenCount'), count('candidatesTokenCount') + count('thoughtsTokenCount'), count('cachedContentTokenCount'));
}

/** The visible text of the first candidate; thought summaries (`thought: true`) are not the answer. */
function candidateParts(candidate: Record<string, unknown>): Record<string, unknown>[] {
  const parts = asRecord(candidate.content).parts;
  return Array.isArray(parts) ? parts.map(asRecord) : [];
}

function candidateText(candidate: Record<string, unknown>): string {
  return candidateParts(candidate)
    .filter((part) => part.thought !== true && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

/** `functionCall` parts as OpenAI tool calls; Gemini sends each call whole, usually without an id. */
function candidateToolCalls(candidate: Record<string, unknown>): OpenAIToolCall[] {
  return candidateParts(candidate)
    .filter((part) => part.functionCall !== undefined)
    .map((part) => {
      const call = asRecord(part.functionCall);
      return { id: asString(call.id) ?? newToolCallId(), type: 'function', function: { name: asString(call.name) ?? '', arguments: JSON.stringify(call.args ?? {}) } };
    });
}

/** Gemini finishes a turn that calls functions with STOP; OpenAI says `tool_calls`. */
const withToolCalls = (finishReason: FinishReason | null, hasToolCalls: boolean): FinishReason | null => (hasToolCalls && finishReason === 'stop' ? 'tool_calls' : finishReason);

function firstCandidate(response: Record<string, unknown>): Record<string, unknown> | undefined {
  return Array.isArray(response.candidates) && response.candidates.length ? asRecord(response.candidates[0]) : undefined;
}

/** A prompt Gemini blocked comes back with no candidates and `promptFeedback.blockReason`. */
const isPromptBlocked = (response: Record<string, unknown>): boolean => typeof asRecord(response.promptFeedback).blockReason === 'string';

function identityOf(response: Record<string, unknown>, call: ProviderCall): AnswerIdentity {
  return { id: asString(response.responseId) ?? `gen-${Date.now()}`, created: nowInSeconds(), model: asString(response.modelVersion) ?? call.body.model };
}

interface TokenLogprob {
  token: string;
  logprob: number;
}

/** One decoding step of `logprobsResult`: the chosen token and the top alternatives. */
export interface LogprobStep {
  chosen: TokenLogprob;
  top: TokenLogprob[];
}

function tokenLogprob(value: unknown): TokenLogprob {
  const candidate = asRecord(value);
  return { token: asString(candidate.token) ?? '', logprob: typeof candidate.logProbability === 'number' ? candidate.logProbability : 0 };
}

/** `logprobsResult.chosenCandidates[i]` with `topCandidates[i].candidates`, step by step; undefined when absent. */
export function readLogprobSteps(candidate: Record<string, unknown>): LogprobStep[] | undefined {
  const result = asRecord(candidate.logprobsResult);
  if (!Array.isArray(result.chosenCandidates)) return undefined;
  const tops = Array.isArray(result.topCandidates) ? result.topCandidates : [];
  return result.chosenCandidates.map((chosen, index) => {
    const alternatives = asRecord(tops[index]).candidates;
    return { chosen: tokenLogprob(chosen), top: Array.isArray(alternatives) ? alternatives.map(tokenLogprob) : [] };
  });
}

const utf8Bytes = (token: string): number[] => Array.from(new TextEncoder().encode(token));

/**
 * OpenAI's shapes: chat `{content:[{token, logprob, bytes, top_logprobs}]}`; completions
 * `{tokens, token_logprobs, top_logprobs, text_offset}`, offsets counted on from `startOffset` in a stream.
 */
export function toOpenAILogprobs(endpoint: ProviderCall['endpoint'], steps: LogprobStep[], startOffset = 0): OpenAILogprobs {
  if (endpoint === 'chat') {
    return {
      content: steps.map(({ chosen, top }) => ({
        token: chosen.token,
        logprob: chosen.logprob,
        bytes: utf8Bytes(chosen.token),
        top_logprobs: top.map((alternative) => ({ token: alternative.token, logprob: alternative.logprob, bytes: utf8Bytes(alternative.token) })),
      })),
      refusal: null,
    };
  }
  let offset = startOffset;
  return {
    tokens: steps.map((step) => step.chosen.token),
    token_logprobs: steps.map((step) => step.chosen.logprob),
    top_logprobs: steps.map((step) => Object.fromEntries(step.top.map((alternative) => [alternative.token, alternative.logprob]))),
    text_offset: steps.map((step) => {
      const at = offset;
      offset += step.chosen.token.length;
      return at;
    }),
  };
}

export function mapGenerateContentResponse(call: ProviderCall, json: unknown): object {
  const response = asRecord(json);
  const candidate = firstCandidate(response);
  const finishReason = candidate ? mapFinishReason(candidate.finishReason) : isPromptBlocked(response) ? 'content_filter' : null;
  const steps = candidate ? readLogprobSteps(candidate) : undefined;
  const logprobs = steps ? toOpenAILogprobs(call.endpoint, steps) : null;
  const toolCalls = candidate && call.endpoint === 'chat' ? candidateToolCalls(candidate) : [];
  const text = candidate ? candidateText(candidate) : '';
  return buildAnswer(call.endpoint, identityOf(response, call), text, withToolCalls(finishReason, toolCalls.length > 0), toOpenAIUsage(response.usageMetadata), logprobs, toolCalls);
}

/** Reads a Google error object (`{code, message, status}`) into a stream error. */
function streamError(error: Record<string, unknown>): ProviderStreamError {
  const status = asString(error.status);
  const code = typeof error.code === 'number' ? error.code : 500;
  return new ProviderStreamError(asString(error.message) ?? 'The provider reported an error in the stream', errorTypeForStatus(code), status ?? null);
}

/**
 * Reads `streamGenerateContent?alt=sse`: each `data:` is a GenerateContentResponse holding the next
 * piece of text; the last one has `finishReason` and the usage. There is no `[DONE]`: the relay adds it.
 */
export function createGenerateContentStreamTranslator(call: ProviderCall): StreamTranslator {
  const withUsage = includeUsage(call);
  let identity: AnswerIdentity | undefined;
  let usage: OpenAIUsage | undefined;
  let roleSent = false;
  let finished = false;
  /** Where the next token starts in the whole answer, for a completion's `text_offset`. */
  let textOffset = 0;
  let toolCallCount = 0;
  const chunk = (id: AnswerIdentity, text: string | undefined, finishReason: FinishReason | null, logprobs: OpenAILogprobs = null) => {
    const withRole = call.endpoint === 'chat' && !roleSent;
    roleSent = true;
    return buildChunk(call.endpoint, id, { text: withRole && text === undefined ? '' : text, finishReason, withRole, logprobs }, withUsage);
  };

  return {
    framing: 'sse',
    onEvent(event: UpstreamEvent): object[] {
      if (event.kind !== 'sse') return [];
      let response: Record<string, unknown>;
      try {
        response = asRecord(JSON.parse(event.data));
      } catch {
        throw new ProviderStreamError(`The provider sent a stream event that is not JSON: ${event.data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
      }
      if (response.error !== undefined) throw streamError(asRecord(response.error));
      identity ??= identityOf(response, call);
      if (response.usageMetadata !== undefined) usage = toOpenAIUsage(response.usageMetadata);
      const chunks: object[] = [];
      const candidate = firstCandidate(response);
      if (candidate) {
        const text = candidateText(candidate);
        const steps = readLogprobSteps(candidate);
        if (text) chunks.push(chunk(identity, text, null, steps ? toOpenAILogprobs(call.endpoint, steps, textOffset) : null));
        textOffset += text.length;
        if (call.endpoint === 'chat') {
          for (const toolCall of candidateToolCalls(candidate)) {
            const withRole = !roleSent;
            roleSent = true;
            chunks.push(buildChunk(call.endpoint, identity, { withRole, toolCalls: [{ index: toolCallCount++, ...toolCall }] }, withUsage));
          }
        }
        const finishReason = withToolCalls(mapFinishReason(candidate.finishReason), toolCallCount > 0);
        if (finishReason) {
          finished = true;
          chunks.push(chunk(identity, call.endpoint === 'chat' ? undefined : '', finishReason));
        }
      } else if (isPromptBlocked(response)) {
        finished = true;
        chunks.push(chunk(identity, call.endpoint === 'chat' ? undefined : '', 'content_filter'));
      }
      return chunks;
    },
    onEnd(): object[] {
      if (!finished) throw new ProviderStreamError('The provider stream ended before a finishReason', 'api_error', 'stream_incomplete');
      return withUsage ? [buildUsageChunk(call.endpoint, identity ?? identityOf({}, call), usage ?? usageOf(0, 0))] : [];
    },
    usage: () => usage,
  };
}

/** `{error:{code, message, status}}` (sometimes wrapped in an array) → the contract's fields; `code` keeps Google's status. */
export function mapGoogleError(status: number, body: string): MappedProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.trim().slice(0, 2000) || `Provider answered with status ${status}`, type: errorTypeForStatus(status), code: null };
  }
  const root = asRecord(Array.isArray(parsed) ? parsed[0] : parsed);
  const error = asRecord(root.error);
  return {
    message: asString(error.message) ?? asString(root.message) ?? `Provider answered with status ${status}`,
    type: errorTypeForStatus(status),
    code: asString(error.status) ?? null,
  };
}
