// A GenerateContentRequest as clients send it (`@google/genai`, Gemini CLI) → canonical request. The model
// and the streaming switch are in Gemini's URL, not its body: the ingress hands them over with the body.
import { invalidRequest } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import type { CanonicalRequest, ContentPart, ReasoningEffort, ResponseFormat, ToolChoice, ToolDefinition, Turn } from '../canonical.js';

type Json = Record<string, unknown>;

/** A Gemini call as the ingress reads it: the body, and what the path says (the model, whether it streams and how). */
export interface GeminiCallRequest {
  model: string;
  stream: boolean;
  /** `streamGenerateContent` without `alt=sse`: the answer is one JSON array, written piece by piece. */
  streamFraming?: 'json-array';
  body: Json;
}

/** `generationConfig.maxOutputTokens` of a call as the ingress hands it over, unchecked (for the window and budget checks). */
export function geminiMaxOutputTokens(call: unknown): unknown {
  const body = isPlainObject(call) && isPlainObject(call.body) ? call.body : {};
  return isPlainObject(body.generationConfig) ? body.generationConfig.maxOutputTokens : undefined;
}

const PART_DATA_KEYS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'] as const;

/** Tools Gemini runs itself (search, code execution …): no other provider has them, so they are left out and noted. */
const GOOGLE_TOOL_KEYS = ['googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'retrieval', 'computerUse', 'fileSearch', 'googleMaps', 'enterpriseWebSearch'];

/** generationConfig fields the canonical model has no place for: left out (and noted) on other providers. */
const KNOWN_CONFIG = new Set([
  'temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'candidateCount', 'responseMimeType', 'responseSchema', 'responseJsonSchema',
  'thinkingConfig', 'presencePenalty', 'frequencyPenalty', 'seed', 'responseLogprobs', 'logprobs',
]);

/** Top-level request fields read here; any other is kept as an extension (left out and noted elsewhere). */
const KNOWN_FIELDS = new Set(['contents', 'systemInstruction', 'system_instruction', 'tools', 'toolConfig', 'generationConfig', 'model', 'generateContentRequest']);

function object(value: unknown, field: string, what = 'an object'): Json {
  if (!isPlainObject(value)) throw invalidRequest(`'${field}' must be ${what}`, field);
  return value;
}

function optionalNumber(config: Json, key: string, check: (n: number) => boolean, what: string): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || !check(value)) throw invalidRequest(`'generationConfig.${key}' must be ${what}`, `generationConfig.${key}`);
  return value;
}

const integer = (n: number): boolean => Number.isInteger(n);

/** OpenAPI's upper-case types (`OBJECT`, `STRING`, what the SDK's `Type` enum sends) → JSON Schema's lower-case ones. */
export function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!isPlainObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'propertyOrdering' || key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') out.type = value === 'TYPE_UNSPECIFIED' ? undefined : value.toLowerCase();
    else if (key === 'properties' && isPlainObject(value)) out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, jsonSchemaOf(sub)]));
    else if (key === 'items' || key === 'anyOf' || key === 'prefixItems') out[key] = jsonSchemaOf(value);
    else out[key] = value;
  }
  if (out.type === undefined) delete out.type;
  // OpenAPI says `nullable: true`; JSON Schema says it in the type.
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** The text of a systemInstruction: a Content of text parts, or (the SDK allows it) a plain string. */
function systemOf(value: unknown, field: string): { type: 'text'; text: string }[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  const content = object(value, field, 'a Content object with text parts');
  const parts = content.parts;
  if (!Array.isArray(parts)) throw invalidRequest(`'${field}.parts' must be an array of parts`, `${field}.parts`);
  return parts.map((part, index) => {
    const text = isPlainObject(part) ? part.text : undefined;
    if (typeof text !== 'string') throw invalidRequest(`'${field}.parts[${index}]' must be a text part: a system instruction holds text only`, `${field}.parts[${index}]`);
    return { type: 'text' as const, text };
  });
}

/** A functionResponse's `response` as a tool result's text: Gemini CLI's `{output}`, `{content}`, `{error}`, else the object as JSON. */
function toolResultOf(response: unknown): { text: string; isError: boolean } {
  if (!isPlainObject(response)) return { text: response === undefined ? '' : JSON.stringify(response), isError: false };
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  const value = only ? response[only] : undefined;
  if ((only === 'output' || only === 'content') && typeof value === 'string') return { text: value, isError: false };
  if (only === 'error') return { text: typeof value === 'string' ? value : JSON.stringify(value), isError: true };
  return { text: JSON.stringify(response), isError: false };
}

/**
 * Call ids across the conversation: a functionCall without an id gets one, and a functionResponse without
 * one answers the earliest unanswered call of the same name (Gemini's own rule when ids are absent).
 */
class CallIds {
  /**
   * Per name: its calls in order, where the earliest unanswered one may be, and how many times each id is
   * still unanswered and was answered by id (skipped when reached). Answering by id is then O(1): finding
   * and cutting it out of the list was quadratic over many calls of one name answered in reverse order.
   */
  private readonly open = new Map<string, { ids: string[]; next: number; unanswered: Map<string, number>; answeredById: Map<string, number> }>();
  private made = 0;

  call(name: string, id: string | undefined): string {
    const callId = id ?? `call_gemini_${++this.made}`;
    let queue = this.open.get(name);
    if (!queue) this.open.set(name, (queue = { ids: [], next: 0, unanswered: new Map(), answeredById: new Map() }));
    queue.ids.push(callId);
    queue.unanswered.set(callId, (queue.unanswered.get(callId) ?? 0) + 1);
    return callId;
  }

  answer(name: string, id: string | undefined, field: string): string {
    const queue = this.open.get(name);
    if (id !== undefined) {
      const left = queue?.unanswered.get(id) ?? 0;
      if (queue && left > 0) {
        queue.unanswered.set(id, left - 1);
        queue.answeredById.set(id, (queue.answeredById.get(id) ?? 0) + 1);
      }
      return id;
    }
    while (queue && queue.next < queue.ids.length) {
      const first = queue.ids[queue.next++];
      const skipped = queue.answeredById.get(first) ?? 0;
      if (skipped > 0) {
        queue.answeredById.set(first, skipped - 1);
        continue;
      }
      queue.unanswered.set(first, (queue.unanswered.get(first) ?? 1) - 1);
      return first;
    }
    throw invalidRequest(`'${field}' answers a call of '${name}', and no earlier functionCall of that name is unanswered`, field);
  }
}

function decodePart(value: unknown, where: string, role: 'user' | 'model', ids: CallIds): ContentPart[] {
  const part = object(value, where, 'a Part object');
  const set = PART_DATA_KEYS.filter((key) => part[key] !== undefined);
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  if (set.length === 0 && part.thought === true && signature) return [{ type: 'reasoning', text: '', signature }];
  if (set.length !== 1) throw invalidRequest(`'${where}' must hold exactly one of ${PART_DATA_KEYS.join(', ')}`, where);
  const key = set[0];
  const data = part[key];
  // A signature on an answer part belongs to the thinking before it (Gemini 3 signs its function calls so).
  const signed: ContentPart[] = signature && part.thought !== true && role === 'model' ? [{ type: 'reasoning', text: '', signature }] : [];
  switch (key) {
    case 'text': {
      if (typeof data !== 'string') throw invalidRequest(`'${where}.text' must be a string`, `${where}.text`);
      if (part.thought === true) return [{ type: 'reasoning', text: data, ...(signature ? { signature } : {}) }];
      return [...signed, { type: 'text', text: data }];
    }
    case 'inlineData': {
      const blob = object(data, `${where}.inlineData`, 'an object with mimeType and data');
      if (typeof blob.mimeType !== 'string' || blob.mimeType === '') throw invalidRequest(`'${where}.inlineData.mimeType' must be a non-empty string`, `${where}.inlineData.mimeType`);
      if (typeof blob.data !== 'string') throw invalidRequest(`'${where}.inlineData.data' must be a base64 string`, `${where}.inlineData.data`);
      return [...signed, { type: 'image', source: { kind: 'base64', mediaType: blob.mimeType, data: blob.data } }];
    }
    case 'fileData': {
      const file = object(data, `${where}.fileData`, 'an object with fileUri');
      if (typeof file.fileUri !== 'string' || file.fileUri === '') throw invalidRequest(`'${where}.fileData.fileUri' must be a non-empty string`, `${where}.fileData.fileUri`);
      return [...signed, { type: 'image', source: { kind: 'url', url: file.fileUri } }];
    }
    case 'functionCall': {
      const call = object(data, `${where}.functionCall`, 'an object with name and args');
      if (typeof call.name !== 'string' || call.name === '') throw invalidRequest(`'${where}.functionCall.name' must be a non-empty string`, `${where}.functionCall.name`);
      if (call.args !== undefined && call.args !== null && !isPlainObject(call.args)) throw invalidRequest(`'${where}.functionCall.args' must be an object`, `${where}.functionCall.args`);
      if (call.id !== undefined && typeof call.id !== 'string') throw invalidRequest(`'${where}.functionCall.id' must be a string`, `${where}.functionCall.id`);
      const id = ids.call(call.name, call.id || undefined);
      return [...signed, { type: 'tool_call', id, name: call.name, arguments: JSON.stringify(call.args ?? {}) }];
    }
    case 'functionResponse': {
      const answer = object(data, `${where}.functionResponse`, 'an object with name and response');
      if (typeof answer.name !== 'string' || answer.name === '') throw invalidRequest(`'${where}.functionResponse.name' must be a non-empty string`, `${where}.functionResponse.name`);
      if (answer.id !== undefined && typeof answer.id !== 'string') throw invalidRequest(`'${where}.functionResponse.id' must be a string`, `${where}.functionResponse.id`);
      const callId = ids.answer(answer.name, answer.id || undefined, `${where}.functionResponse`);
      const { text, isError } = toolResultOf(answer.response);
      return [{ type: 'tool_result', callId, name: answer.name, content: text, ...(isError ? { isError } : {}) }];
    }
    case 'executableCode':
      // Code Gemini ran for itself earlier in the conversation: kept as what it was, text.
      return [{ type: 'text', text: String(asJson(data).code ?? '') }];
    case 'codeExecutionResult':
      return [{ type: 'text', text: String(asJson(data).output ?? '') }];
  }
}

const asJson = (value: unknown): Json => (isPlainObject(value) ? value : {});

/** Consecutive thought parts of a turn are one piece of reasoning; a signature after them signs it. */
function joinReasoning(parts: ContentPart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (part.type === 'reasoning' && last?.type === 'reasoning' && last.signature === undefined) {
      out[out.length - 1] = { ...last, text: last.text + part.text, ...(part.signature ? { signature: part.signature } : {}) };
    } else out.push(part);
  }
  return out;
}

function decodeContents(value: unknown): Turn[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidRequest("'contents' is required: a non-empty array of Content objects", 'contents');
  const ids = new CallIds();
  return value.map((item, index) => {
    const where = `contents[${index}]`;
    const content = object(item, where, 'a Content object with role and parts');
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') {
      throw invalidRequest(`'${where}.role' must be 'user' or 'model'`, `${where}.role`);
    }
    const role = content.role === 'model' ? 'model' : 'user';
    if (!Array.isArray(content.parts) || content.parts.length === 0) throw invalidRequest(`'${where}.parts' must be a non-empty array of parts`, `${where}.parts`);
    const parts = joinReasoning(content.parts.flatMap((part, j) => decodePart(part, `${where}.parts[${j}]`, role, ids)));
    return { role: role === 'model' ? 'assistant' : 'user', parts, source: where } satisfies Turn;
  });
}

function decodeTools(value: unknown, extensions: Json): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidRequest("'tools' must be an array of Tool objects", 'tools');
  const tools: ToolDefinition[] = [];
  value.forEach((item, i) => {
    const tool = object(item, `tools[${i}]`, 'a Tool object');
    for (const key of GOOGLE_TOOL_KEYS) if (tool[key] !== undefined) extensions[`tools[${i}].${key}`] = tool[key];
    if (tool.functionDeclarations === undefined) return;
    if (!Array.isArray(tool.functionDeclarations)) throw invalidRequest(`'tools[${i}].functionDeclarations' must be an array`, `tools[${i}].functionDeclarations`);
    tool.functionDeclarations.forEach((declared, j) => {
      const where = `tools[${i}].functionDeclarations[${j}]`;
      const declaration = object(declared, where, 'a FunctionDeclaration object');
      if (typeof declaration.name !== 'string' || declaration.name === '') throw invalidRequest(`'${where}.name' must be a non-empty string`, `${where}.name`);
      if (declaration.description !== undefined && typeof declaration.description !== 'string') throw invalidRequest(`'${where}.description' must be a string`, `${where}.description`);
      const jsonSchema = declaration.parametersJsonSchema;
      const openApi = declaration.parameters;
      if (jsonSchema !== undefined && !isPlainObject(jsonSchema)) throw invalidRequest(`'${where}.parametersJsonSchema' must be a JSON Schema object`, `${where}.parametersJsonSchema`);
      if (openApi !== undefined && !isPlainObject(openApi)) throw invalidRequest(`'${where}.parameters' must be a Schema object`, `${where}.parameters`);
      const parameters = (jsonSchema as Json | undefined) ?? (openApi ? (jsonSchemaOf(openApi) as Json) : { type: 'object', properties: {} });
      tools.push({ name: declaration.name, ...(declaration.description ? { description: declaration.description } : {}), parameters });
    });
  });
  return tools;
}

/** functionCallingConfig → the canonical choice; ANY with a list of names keeps only those tools callable. */
function decodeToolConfig(value: unknown, tools: ToolDefinition[] | undefined): { toolChoice?: ToolChoice; tools?: ToolDefinition[] } {
  if (value === undefined || value === null) return { tools };
  const config = object(object(value, 'toolConfig').functionCallingConfig ?? {}, 'toolConfig.functionCallingConfig');
  const mode = config.mode ?? 'AUTO';
  const names = config.allowedFunctionNames;
  if (names !== undefined && (!Array.isArray(names) || !names.every((name) => typeof name === 'string'))) {
    throw invalidRequest("'toolConfig.functionCallingConfig.allowedFunctionNames' must be an array of strings", 'toolConfig.functionCallingConfig.allowedFunctionNames');
  }
  switch (mode) {
    case 'AUTO':
    case 'VALIDATED':
    case 'MODE_UNSPECIFIED':
      return { toolChoice: { mode: 'auto' }, tools };
    case 'NONE':
      return { toolChoice: { mode: 'none' }, tools };
    case 'ANY': {
      const allowed = names as string[] | undefined;
      if (allowed?.length === 1) return { toolChoice: { mode: 'tool', name: allowed[0] }, tools };
      return { toolChoice: { mode: 'required' }, tools: allowed?.length ? tools?.filter((tool) => allowed.includes(tool.name)) : tools };
    }
    default:
      throw invalidRequest("'toolConfig.functionCallingConfig.mode' must be one of AUTO, ANY, NONE or VALIDATED", 'toolConfig.functionCallingConfig.mode');
  }
}

const THINKING_LEVELS: Record<string, ReasoningEffort> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/** thinkingConfig → reasoning: a budget of 0 is off, -1 the model's own budget, a level an effort. */
function decodeThinking(value: unknown): CanonicalRequest['reasoning'] {
  if (value === undefined || value === null) return undefined;
  const config = object(value, 'generationConfig.thinkingConfig');
  const budget = optionalNumber(config, 'thinkingBudget', (n) => integer(n) && n >= -1, 'an integer, -1 or more');
  const level = config.thinkingLevel;
  if (level !== undefined && (typeof level !== 'string' || !(level in THINKING_LEVELS) && level !== 'THINKING_LEVEL_UNSPECIFIED')) {
    throw invalidRequest("'generationConfig.thinkingConfig.thinkingLevel' must be one of MINIMAL, LOW, MEDIUM or HIGH", 'generationConfig.thinkingConfig.thinkingLevel');
  }
  const effort = typeof level === 'string' ? THINKING_LEVELS[level] : undefined;
  if (budget === 0) return { enabled: false };
  if (budget === undefined && effort === undefined) return config.includeThoughts === true ? { enabled: true } : undefined;
  return { enabled: true, ...(effort ? { effort } : {}), ...(budget !== undefined && budget > 0 ? { budgetTokens: budget } : {}) };
}

function decodeResponseFormat(config: Json): ResponseFormat | undefined {
  const mime = config.responseMimeType;
  if (mime !== undefined && typeof mime !== 'string') throw invalidRequest("'generationConfig.responseMimeType' must be a string", 'generationConfig.responseMimeType');
  const schema = config.responseJsonSchema ?? (config.responseSchema !== undefined ? jsonSchemaOf(config.responseSchema) : undefined);
  if (schema !== undefined) {
    if (!isPlainObject(schema)) throw invalidRequest("'generationConfig.responseSchema' must be a Schema object", 'generationConfig.responseSchema');
    return { type: 'json_schema', name: 'response', schema };
  }
  if (mime === 'application/json') return { type: 'json_object' };
  if (mime === undefined || mime === 'text/plain') return undefined;
  throw invalidRequest(`'generationConfig.responseMimeType' '${mime}' is not supported: use text/plain or application/json`, 'generationConfig.responseMimeType');
}

function decodeGenerationConfig(value: unknown, extensions: Json): Partial<CanonicalRequest> {
  if (value === undefined || value === null) return {};
  const config = object(value, 'generationConfig');
  for (const [key, entry] of Object.entries(config)) if (!KNOWN_CONFIG.has(key)) extensions[`generationConfig.${key}`] = entry;
  const out: Partial<CanonicalRequest> = {};
  const temperature = optionalNumber(config, 'temperature', (n) => n >= 0 && n <= 2, 'a number from 0 to 2');
  const topP = optionalNumber(config, 'topP', (n) => n >= 0 && n <= 1, 'a number from 0 to 1');
  const topK = optionalNumber(config, 'topK', (n) => integer(n) && n >= 1, 'a positive integer');
  const maxOutputTokens = optionalNumber(config, 'maxOutputTokens', (n) => integer(n) && n >= 1, 'a positive integer');
  const candidateCount = optionalNumber(config, 'candidateCount', (n) => integer(n) && n >= 1 && n <= 8, 'an integer from 1 to 8');
  const presencePenalty = optionalNumber(config, 'presencePenalty', (n) => n >= -2 && n <= 2, 'a number from -2 to 2');
  const frequencyPenalty = optionalNumber(config, 'frequencyPenalty', (n) => n >= -2 && n <= 2, 'a number from -2 to 2');
  const seed = optionalNumber(config, 'seed', integer, 'an integer');
  const logprobs = optionalNumber(config, 'logprobs', (n) => integer(n) && n >= 0 && n <= 20, 'an integer from 0 to 20');
  if (temperature !== undefined) out.temperature = temperature;
  if (topP !== undefined) out.topP = topP;
  if (topK !== undefined) out.topK = topK;
  if (maxOutputTokens !== undefined) out.maxOutputTokens = maxOutputTokens;
  if (candidateCount !== undefined && candidateCount > 1) out.n = candidateCount;
  if (presencePenalty !== undefined) out.presencePenalty = presencePenalty;
  if (frequencyPenalty !== undefined) out.frequencyPenalty = frequencyPenalty;
  if (seed !== undefined) out.seed = seed;
  const stop = config.stopSequences;
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop) || !stop.every((item) => typeof item === 'string')) throw invalidRequest("'generationConfig.stopSequences' must be an array of strings", 'generationConfig.stopSequences');
    if (stop.length) out.stop = stop as string[];
  }
  if (config.responseLogprobs !== undefined && typeof config.responseLogprobs !== 'boolean') throw invalidRequest("'generationConfig.responseLogprobs' must be a boolean", 'generationConfig.responseLogprobs');
  if (config.responseLogprobs === true) out.logprobs = { top: logprobs ?? 0 };
  const responseFormat = decodeResponseFormat(config);
  if (responseFormat) out.responseFormat = responseFormat;
  const reasoning = decodeThinking(config.thinkingConfig);
  if (reasoning) out.reasoning = reasoning;
  return out;
}

/** The GenerateContentRequest of a call (countTokens may wrap it in `generateContentRequest`), as the canonical request. */
export function decodeGeminiRequest(json: unknown): CanonicalRequest {
  const call = json as Partial<GeminiCallRequest>;
  if (!isPlainObject(call) || typeof call.model !== 'string') throw invalidRequest('A Gemini request names its model in the path: /v1beta/models/{model}:generateContent', 'model');
  let body = object(call.body, 'body', 'a JSON object');
  if (isPlainObject(body.generateContentRequest)) body = body.generateContentRequest;
  if (body.cachedContent !== undefined) {
    throw invalidRequest("'cachedContent' names content cached at Google: it can only be sent to a Gemini provider (google, or Gemini on vertex-ai)", 'cachedContent');
  }
  const extensions: Json = {};
  for (const [key, value] of Object.entries(body)) if (!KNOWN_FIELDS.has(key)) extensions[key] = value;
  const system = systemOf(body.systemInstruction ?? body.system_instruction, body.systemInstruction !== undefined ? 'systemInstruction' : 'system_instruction');
  const turns = decodeContents(body.contents);
  const declared = decodeTools(body.tools, extensions);
  const { toolChoice, tools } = decodeToolConfig(body.toolConfig, declared);
  const config = decodeGenerationConfig(body.generationConfig, extensions);
  return {
    dialect: 'gemini',
    // Gemini CLI's bodies change with every release: what another provider cannot take is left out and noted.
    onUnsupported: 'drop',
    model: call.model,
    system,
    turns,
    ...(tools?.length ? { tools } : {}),
    ...(toolChoice && tools?.length ? { toolChoice } : {}),
    ...config,
    stream: call.stream === true,
    ...(call.streamFraming ? { streamFraming: call.streamFraming } : {}),
    extensions,
  };
}
