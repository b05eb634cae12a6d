// Google's generateContent format, spoken by `google` (Gemini API) and by Gemini models on `vertex-ai`:
// a canonical request becomes a GenerateContentRequest (the model goes in the URL), and an answer or an
// `alt=sse` stream of GenerateContentResponse fragments (no [DONE]) becomes canonical events.
import { errorTypeForStatus, invalidRequest, unsupportedField } from '../core/errors.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';
import { newToolCallId } from './openai-chat.js';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  cannotHonour,
  emptyUserTurn,
  fieldName,
  toolArgumentsObject,
  foldEvents,
  type CanonicalAnswer,
  type CanonicalEvent,
  type CanonicalRequest,
  type ContentPart,
  type EncodedRequest,
  type EncodeTarget,
  type FinishReason,
  type ProviderCodec,
  type ReasoningEffort,
  type StreamDecoder,
  type TokenLogprob,
  type ToolResultContent,
  type Usage,
  type UpstreamEvent,
} from './canonical.js';

type GeminiPart = Record<string, unknown>;

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

interface GenerationConfig {
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
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: string };
}

/** Tool calls the provider made without an id of its own (Gemini usually does) get one, as OpenAI's always have. */

/**
 * Gemini 3 refuses a replayed functionCall without the `thoughtSignature` it came with; a client that could
 * not keep one (Chat has nowhere to) gets the value Google documents for history that lost its signatures.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

const geminiMajor = (model: string): number | undefined => {
  const major = /^(?:models\/)?gemini-(\d+)/.exec(model)?.[1];
  return major === undefined ? undefined : Number(major);
};

export const needsThoughtSignatures = (model: string): boolean => (geminiMajor(model) ?? 0) >= 3;

/** generationConfig.seed is an int32. */
const INT32_MAX = 2 ** 31 - 1;
/** generationConfig.logprobs: alternatives per step. */
const MAX_LOGPROBS = 20;

/** The name of the conversation field in the client's dialect (`messages`, `input`, `prompt`). */
const turnsField = (request: CanonicalRequest): string => fieldName(request, 'turns');

/** A tool's result goes back as an object: JSON the tool returned as is, anything else under `content` (`error` for a failure). */
function functionResponseOf(text: string, isError: boolean): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Plain text.
  }
  if (isError) return { error: parsed !== undefined && typeof parsed === 'object' && parsed !== null ? parsed : text };
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  return { content: text };
}

function inlineImage(part: Extract<ContentPart, { type: 'image' }>, request: CanonicalRequest, target: EncodeTarget): GeminiPart {
  // fileData takes files uploaded to Google (Files API, Cloud Storage), not any web address.
  if (part.source.kind !== 'base64') throw unsupportedField(turnsField(request), target.provider, 'with an image given by URL is not supported (send it as a base64 data: URL)');
  return { inlineData: { mimeType: part.source.mediaType, data: part.source.data } };
}

function toolResultParts(content: ToolResultContent): { text: string; images: Extract<ContentPart, { type: 'image' }>[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  return {
    text: content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    images: content.filter((part): part is Extract<ContentPart, { type: 'image' }> => part.type === 'image'),
  };
}

/**
 * The conversation as Gemini contents: roles `user` and `model` only, no empty parts or empty text,
 * consecutive turns of one role merged (function responses first in theirs), system turns in the middle
 * moved to systemInstruction. Tool results carry the called tool's name, found from the call when the
 * client's dialect does not say it.
 */
function geminiContents(request: CanonicalRequest, target: EncodeTarget): { contents: GeminiContent[]; system: string[] } {
  const system = request.system.flatMap((part) => (part.text === '' ? [] : [part.text]));
  // Each content's function responses and other parts are gathered apart and joined once at the end: merging
  // a turn into the content before it is then two appends, not a search of it (quadratic over a run of
  // one-result turns, which is how Chat sends the results of parallel tool calls).
  const merged: { role: GeminiContent['role']; responses: GeminiPart[]; parts: GeminiPart[] }[] = [];
  const callNames = new Map<string, string>();
  const signFunctionCalls = needsThoughtSignatures(request.model);
  for (const turn of request.turns) {
    if (turn.role === 'system') {
      for (const part of turn.parts) if (part.type === 'text' && part.text !== '') system.push(part.text);
      continue;
    }
    const role = turn.role === 'assistant' ? 'model' : 'user';
    const responses: GeminiPart[] = [];
    const parts: GeminiPart[] = [];
    /** A thought signature waits for the part it belongs to: the next one of this model turn. */
    let signature: string | undefined;
    const signed = (part: GeminiPart): GeminiPart => {
      if (signature === undefined) return part;
      const withSignature = { ...part, thoughtSignature: signature };
      signature = undefined;
      return withSignature;
    };
    for (const part of turn.parts) {
      switch (part.type) {
        case 'text':
          if (part.text !== '') parts.push(signed({ text: part.text }));
          break;
        case 'image':
          parts.push(signed(inlineImage(part, request, target)));
          break;
        case 'reasoning':
          // Thought summaries are not sent back; their signature goes on the part that follows them.
          if (role === 'model' && part.signature) signature = part.signature;
          break;
        case 'tool_call': {
          callNames.set(part.id, part.name);
          const functionCall = { functionCall: { name: part.name, args: toolArgumentsObject(part.arguments, request) } };
          if (signature === undefined && signFunctionCalls) parts.push({ ...functionCall, thoughtSignature: SKIP_THOUGHT_SIGNATURE });
          else parts.push(signed(functionCall));
          break;
        }
        case 'tool_result': {
          const name = part.name ?? callNames.get(part.callId);
          if (!name) throw invalidRequest(`A tool result in '${turnsField(request)}' names the call '${part.callId}', which no earlier assistant turn made`, turnsField(request));
          const { text, images } = toolResultParts(part.content);
          responses.push({ functionResponse: { name, response: functionResponseOf(text, part.isError === true) } });
          for (const image of images) parts.push(inlineImage(image, request, target));
          break;
        }
      }
    }
    // A signature with nothing after it (Gemini sends one on an empty last part) stays with the turn's last part.
    const last = parts.at(-1);
    if (signature !== undefined && last && !('thoughtSignature' in last)) parts[parts.length - 1] = signed(last);
    if (responses.length === 0 && parts.length === 0) {
      // Gemini refuses a content without parts; a model turn with nothing in it is left out.
      if (turn.role === 'user') throw emptyUserTurn(request, turn, target.provider);
      continue;
    }
    const previous = merged.at(-1);
    if (previous?.role === role) {
      for (const part of responses) previous.responses.push(part);
      for (const part of parts) previous.parts.push(part);
    } else {
      merged.push({ role, responses, parts });
    }
  }
  // Function responses lead their turn, right after the model's calls.
  const contents = merged.map(({ role, responses, parts }): GeminiContent => ({ role, parts: responses.concat(parts) }));
  return { contents, system };
}

/** Thinking budgets for an effort level, on models that take a budget (Gemini 2.5) rather than a level. */
const EFFORT_BUDGET: Record<ReasoningEffort, number> = { minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };
/** Gemini 3's thinking levels (the enum's names); the Pro models take only LOW and HIGH. */
const EFFORT_LEVEL: Record<ReasoningEffort, string> = { minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH' };
const PRO_EFFORT_LEVEL: Record<ReasoningEffort, string> = { minimal: 'LOW', low: 'LOW', medium: 'HIGH', high: 'HIGH', xhigh: 'HIGH' };

/**
 * Reasoning asked for → thinkingConfig with thought summaries: a level on Gemini 3 and later when an
 * effort is named, else a token budget. Thinking off is a budget of 0 (Gemini 3 cannot turn it off).
 */
function thinkingConfig(request: CanonicalRequest, target: EncodeTarget, dropped: string[]): GenerationConfig['thinkingConfig'] {
  const reasoning = request.reasoning;
  if (!reasoning) return undefined;
  const levels = needsThoughtSignatures(request.model);
  if (!reasoning.enabled) {
    if (levels) {
      cannotHonour(request, target, dropped, 'reasoning', 'turned off is not supported on Gemini 3 models (they always think)');
      return undefined;
    }
    return { thinkingBudget: 0 };
  }
  if (levels && reasoning.effort) return { thinkingLevel: (/-pro\b/.test(request.model) ? PRO_EFFORT_LEVEL : EFFORT_LEVEL)[reasoning.effort], includeThoughts: true };
  if (reasoning.budgetTokens !== undefined) return { thinkingBudget: reasoning.budgetTokens, includeThoughts: true };
  if (reasoning.effort) return { thinkingBudget: EFFORT_BUDGET[reasoning.effort], includeThoughts: true };
  // Enabled without a size: the model's own dynamic budget.
  return { thinkingBudget: -1, includeThoughts: true };
}

function generationConfig(request: CanonicalRequest, target: EncodeTarget, dropped: string[]): GenerationConfig {
  const config: GenerationConfig = {};
  // Sent only when the client names it: Gemini needs no limit, and a made-up one would starve thinking models.
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.stop?.length) config.stopSequences = request.stop;
  // A penalty of 0 is no penalty; leaving it out spares the models that refuse penalties altogether.
  if (request.presencePenalty) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty) config.frequencyPenalty = request.frequencyPenalty;
  if (request.seed !== undefined) {
    if (Math.abs(request.seed) > INT32_MAX) cannotHonour(request, target, dropped, 'seed', 'outside the 32-bit integer range is not supported');
    else config.seed = request.seed;
  }
  if (request.logprobs) {
    // Gemini gives at most 20 alternatives per step.
    if (request.logprobs.top > MAX_LOGPROBS) {
      cannotHonour(request, target, dropped, 'logprobs', `asking for more than ${MAX_LOGPROBS} alternatives is not supported`);
    } else {
      config.responseLogprobs = true;
      if (request.logprobs.top > 0) config.logprobs = request.logprobs.top;
    }
  }
  const format = request.responseFormat;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') Object.assign(config, { responseMimeType: 'application/json', responseJsonSchema: format.schema });
  const thinking = thinkingConfig(request, target, dropped);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

/** Tools as one Gemini tool of function declarations (JSON Schema kept as JSON Schema), the choice as functionCallingConfig. */
function toolsOf(request: CanonicalRequest): Record<string, unknown> {
  if (!request.tools?.length) return {};
  const tools = [
    {
      functionDeclarations: request.tools.map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), parametersJsonSchema: tool.parameters })),
    },
  ];
  const choice = request.toolChoice;
  if (!choice) return { tools };
  const functionCallingConfig =
    choice.mode === 'tool' ? { mode: 'ANY', allowedFunctionNames: [choice.name] } : { mode: choice.mode === 'required' ? 'ANY' : choice.mode === 'none' ? 'NONE' : 'AUTO' };
  return { tools, toolConfig: { functionCallingConfig } };
}

function encodeRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
  const dropped: string[] = [];
  if (request.user !== undefined) cannotHonour(request, target, dropped, 'user');
  // Gemini may call several functions at once and has no switch against it.
  if (request.parallelToolCalls === false) cannotHonour(request, target, dropped, 'parallelToolCalls');
  for (const name of Object.keys(request.extensions)) cannotHonour(request, target, dropped, name);
  const { contents, system } = geminiContents(request, target);
  if (contents.length === 0) throw invalidRequest(`'${turnsField(request)}' must hold at least one user or assistant message`, turnsField(request));
  const config = generationConfig(request, target, dropped);
  const body: Record<string, unknown> = {
    contents,
    ...toolsOf(request),
    ...(system.length ? { systemInstruction: { parts: system.map((text) => ({ text })) } } : {}),
    ...(Object.keys(config).length ? { generationConfig: config } : {}),
  };
  if (target.modelInBody) body.model = request.model;
  return { body, dropped };
}

// ---- Answers ------------------------------------------------------------------------------------------

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

export function mapFinishReason(finishReason: unknown): FinishReason | null {
  if (typeof finishReason !== 'string' || finishReason === '') return null;
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(finishReason)) return 'content_filter';
  // STOP, and LANGUAGE, OTHER, MALFORMED_FUNCTION_CALL, FINISH_REASON_UNSPECIFIED and later values.
  return 'stop';
}

/** `promptTokenCount` already includes cached tokens; thinking tokens are output tokens. */
export function usageOf(usageMetadata: unknown): Usage {
  const figures = asRecord(usageMetadata);
  const thoughts = typeof figures.thoughtsTokenCount === 'number' ? figures.thoughtsTokenCount : undefined;
  const usage: Usage = {
    inputTokens: asNumber(figures.promptTokenCount) + asNumber(figures.toolUsePromptTokenCount),
    outputTokens: asNumber(figures.candidatesTokenCount) + (thoughts ?? 0),
  };
  if (typeof figures.cachedContentTokenCount === 'number') usage.cacheReadTokens = figures.cachedContentTokenCount;
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  return usage;
}

function tokenLogprob(value: unknown): { token: string; logprob: number } {
  const candidate = asRecord(value);
  return { token: asString(candidate.token) ?? '', logprob: asNumber(candidate.logProbability) };
}

/** `logprobsResult.chosenCandidates[i]` with `topCandidates[i].candidates`, step by step; undefined when absent. */
export function readLogprobs(candidate: Record<string, unknown>): TokenLogprob[] | undefined {
  const result = asRecord(candidate.logprobsResult);
  if (!Array.isArray(result.chosenCandidates)) return undefined;
  const tops = asArray(result.topCandidates);
  return result.chosenCandidates.map((chosen, index) => ({ ...tokenLogprob(chosen), top: asArray(asRecord(tops[index]).candidates).map(tokenLogprob) }));
}

/** Reads a Google error object (`{code, message, status}`) into a stream error. */
function streamError(error: Record<string, unknown>): ProviderStreamError {
  const code = typeof error.code === 'number' ? error.code : 500;
  return new ProviderStreamError(asString(error.message) ?? 'The provider reported an error in the stream', errorTypeForStatus(code), asString(error.status) ?? null);
}

/**
 * Turns GenerateContentResponse fragments into canonical events, one fragment at a time. A whole answer
 * is one fragment; a stream is many, each with the next parts and the last with finishReason and usage.
 */
class ResponseReader {
  private started = false;
  private toolCalls = 0;
  finished = false;

  read(json: unknown): CanonicalEvent[] {
    const response = asRecord(json);
    if (response.error !== undefined) throw streamError(asRecord(response.error));
    const events: CanonicalEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start', ...(asString(response.responseId) ? { id: asString(response.responseId) } : {}), ...(asString(response.modelVersion) ? { model: asString(response.modelVersion) } : {}) });
    }
    const candidates = asArray(response.candidates);
    const candidate = candidates.length ? asRecord(candidates[0]) : undefined;
    let finish: FinishReason | null = null;
    if (candidate) {
      for (const value of asArray(asRecord(candidate.content).parts)) events.push(...this.partEvents(asRecord(value)));
      const logprobs = readLogprobs(candidate);
      if (logprobs?.length) events.push({ type: 'logprobs', tokens: logprobs });
      finish = mapFinishReason(candidate.finishReason);
      // Gemini ends a turn that calls functions with STOP.
      if (finish === 'stop' && this.toolCalls > 0) finish = 'tool_calls';
    } else if (typeof asRecord(response.promptFeedback).blockReason === 'string') {
      // A prompt Gemini blocked comes back with no candidates.
      finish = 'content_filter';
    }
    if (response.usageMetadata !== undefined) events.push({ type: 'usage', usage: usageOf(response.usageMetadata) });
    if (finish && !this.finished) {
      this.finished = true;
      events.push({ type: 'finish', reason: finish });
    }
    return events;
  }

  private partEvents(part: Record<string, unknown>): CanonicalEvent[] {
    const events: CanonicalEvent[] = [];
    const signature = asString(part.thoughtSignature);
    const text = asString(part.text);
    if (part.thought === true) {
      if (text) events.push({ type: 'reasoning', text });
      if (signature) events.push({ type: 'reasoning_signature', signature });
      return events;
    }
    // A signature on an answer part belongs to the thinking before it: it travels as that reasoning's signature.
    if (signature) events.push({ type: 'reasoning_signature', signature });
    if (text) events.push({ type: 'text', text });
    if (part.functionCall !== undefined) {
      const call = asRecord(part.functionCall);
      const index = this.toolCalls++;
      events.push({ type: 'tool_call_start', index, id: asString(call.id) || newToolCallId(), name: asString(call.name) ?? '' });
      events.push({ type: 'tool_call_delta', index, arguments: JSON.stringify(call.args ?? {}) });
      events.push({ type: 'tool_call_end', index });
    }
    return events;
  }
}

function decodeResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  return foldEvents(new ResponseReader().read(json), { id: `gen-${Date.now()}`, model: request.model });
}

/** Reads `streamGenerateContent?alt=sse`: each `data:` is a GenerateContentResponse; there is no [DONE]. */
function createStreamDecoder(): StreamDecoder {
  const reader = new ResponseReader();
  return {
    framing: 'sse',
    onEvent(event: UpstreamEvent): CanonicalEvent[] {
      if (event.kind !== 'sse') return [];
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        throw new ProviderStreamError(`The provider sent a stream event that is not JSON: ${event.data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
      }
      return reader.read(json);
    },
    onEnd(): CanonicalEvent[] {
      if (!reader.finished) throw new ProviderStreamError('The provider stream ended before a finishReason', 'api_error', 'stream_incomplete');
      return [];
    },
  };
}

export const geminiProvider: ProviderCodec = {
  format: 'gemini',
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
};
