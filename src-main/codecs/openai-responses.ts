// OpenAI's Responses API (`POST /v1/responses`), both ways round:
// - as a dialect (Codex CLI, the `openai` SDK's `responses.create`): a Responses body → canonical, and the
//   canonical answer → a Response object or the full `response.created` … `response.completed` stream;
// - as a provider format (OpenAI, Azure OpenAI): canonical → a stateless (`store: false`) Responses body,
//   and a Response object or its stream → canonical events.
// Responses' `namespace` tools (Codex's MCP tools) are flattened to `<namespace>__<tool>` for formats that
// have no namespaces (the name Codex itself gave MCP tools before namespaces); the answer names them back.
import { randomUUID } from 'node:crypto';
import { invalidRequest, type GatewayError } from '../core/errors.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';
import {
  answerEvents,
  asArray,
  asNumber,
  asRecord,
  asString,
  cannotHonour,
  fieldName,
  foldEvents,
  joinText,
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
  type ToolChoice,
  type ToolDefinition,
  type ToolResultContent,
  type Turn,
  type UpstreamEvent,
  type Usage,
} from './canonical.js';
import { isPlainObject } from '../core/plain-object.js';

/** How a namespace tool's name is flattened: `mcp__fixture` + `lookup` → `mcp__fixture__lookup`. */
export const NAMESPACE_SEPARATOR = '__';
export const flatToolName = (namespace: string, name: string): string => `${namespace}${NAMESPACE_SEPARATOR}${name}`;

const present = (value: unknown): boolean => value !== undefined && value !== null;

// ───────────────────────────── request: Responses body → canonical ─────────────────────────────

const EFFORTS: Record<string, ReasoningEffort> = { minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' };
const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

/** An image URL or data URL as the canonical image source; a data URL that is not base64 is refused. */
function imageSource(url: string, param: string): ImageSource {
  if (!url.startsWith('data:')) return { kind: 'url', url };
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (!match) throw invalidRequest(`'${param}' must be an http(s) URL or a base64 data URL (data:image/png;base64,…)`, param);
  return { kind: 'base64', mediaType: match[1], data: match[2] };
}

const imageUrl = (source: ImageSource): string => (source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`);

function requireString(value: unknown, param: string, nonEmpty = true): string {
  if (typeof value !== 'string' || (nonEmpty && value === '')) throw invalidRequest(`'${param}' must be a ${nonEmpty ? 'non-empty ' : ''}string`, param);
  return value;
}

function optionalNumber(value: unknown, param: string, min: number, max: number, integer = false): number | undefined {
  if (!present(value)) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw invalidRequest(`'${param}' must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}`, param);
  }
  return value;
}

function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (!present(value)) return undefined;
  if (typeof value !== 'boolean') throw invalidRequest(`'${param}' must be true or false`, param);
  return value;
}

/** The state of one `input` list as it is read: the turn being filled and the calls made so far. */
interface InputReader {
  request: CanonicalRequest;
  /** Still in the leading system / developer messages (they go to `request.system`). */
  leading: boolean;
  /** call_id → the tool's (flattened) name, for results (Gemini needs the name). */
  callNames: Map<string, string>;
  /** The user turn the last tool outputs made: the next one joins it while it is still the last turn. */
  resultsTurn?: Turn;
}

function assistantTurn(reader: InputReader): Turn {
  reader.leading = false;
  const last = reader.request.turns.at(-1);
  if (last?.role === 'assistant') return last;
  const turn: Turn = { role: 'assistant', parts: [] };
  reader.request.turns.push(turn);
  return turn;
}

function toolResultTurn(reader: InputReader): Turn {
  reader.leading = false;
  // Known by identity, not by checking every part of the last turn (quadratic over many tool outputs).
  // (An empty user turn takes them too, as it always did.)
  const last = reader.request.turns.at(-1);
  if (last !== undefined && (last === reader.resultsTurn || (last.role === 'user' && last.parts.length === 0))) return last;
  const turn: Turn = { role: 'user', parts: [] };
  reader.request.turns.push(turn);
  reader.resultsTurn = turn;
  return turn;
}

/** The text and image parts of a message's or a tool output's content list. */
function readContentParts(content: unknown[], path: string, reader: InputReader, allowImages: boolean): (TextPart | ImagePart)[] {
  const parts: (TextPart | ImagePart)[] = [];
  content.forEach((raw, j) => {
    const param = `${path}[${j}]`;
    if (!isPlainObject(raw)) throw invalidRequest(`'${param}' must be an object with a 'type'`, param);
    const type = raw.type;
    if (type === 'input_text' || type === 'output_text' || type === 'text' || type === 'summary_text') {
      const text = requireString(raw.text, `${param}.text`, false);
      if (text !== '') parts.push({ type: 'text', text });
    } else if (type === 'refusal') {
      const text = requireString(raw.refusal, `${param}.refusal`, false);
      if (text !== '') parts.push({ type: 'text', text });
    } else if (type === 'input_image') {
      if (!allowImages) throw invalidRequest(`'${param}': only text is allowed here`, param);
      if (typeof raw.image_url === 'string' && raw.image_url !== '') parts.push({ type: 'image', source: imageSource(raw.image_url, `${param}.image_url`) });
      else if (typeof raw.file_id === 'string') reader.request.extensions[param] = raw; // stored at OpenAI: see refusesStatefulFields
      else throw invalidRequest(`'${param}' needs an 'image_url' (an http(s) URL or a data URL) or a 'file_id'`, `${param}.image_url`);
    } else if (type === 'input_file' || type === 'input_audio') {
      if (!allowImages) throw invalidRequest(`'${param}': only text is allowed here`, param);
      reader.request.extensions[param] = raw; // only a Responses-native provider reads these: see refusesStatefulFields
    } else {
      throw invalidRequest(`'${param}.type' must be one of input_text, output_text, refusal, input_image, input_file, input_audio`, `${param}.type`);
    }
  });
  return parts;
}

function readMessage(item: Record<string, unknown>, i: number, reader: InputReader): void {
  const path = `input[${i}]`;
  const role = item.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    throw invalidRequest(`'${path}.role' must be one of user, assistant, system, developer`, `${path}.role`);
  }
  const content = item.content;
  let parts: (TextPart | ImagePart)[];
  if (typeof content === 'string') parts = content === '' ? [] : [{ type: 'text', text: content }];
  else if (Array.isArray(content)) parts = readContentParts(content, `${path}.content`, reader, role === 'user');
  else throw invalidRequest(`'${path}.content' must be a string or a list of content parts`, `${path}.content`);

  const { request } = reader;
  if (role === 'system' || role === 'developer') {
    const texts = parts as TextPart[]; // readContentParts allowed only text for these roles
    if (reader.leading) for (const text of texts) request.system.push(text);
    else if (texts.length) request.turns.push({ role: 'system', parts: texts });
    return;
  }
  if (role === 'assistant') {
    if (parts.length) {
      // One by one: a spread of a body's hundreds of thousands of parts overflows the stack.
      const turn = assistantTurn(reader);
      for (const part of parts) turn.parts.push(part);
    } else reader.leading = false;
    return;
  }
  reader.leading = false;
  if (parts.length) request.turns.push({ role: 'user', parts });
}

function readFunctionCall(item: Record<string, unknown>, i: number, reader: InputReader): void {
  const path = `input[${i}]`;
  const id = requireString(item.call_id, `${path}.call_id`);
  const bare = requireString(item.name, `${path}.name`);
  const namespace = item.namespace === undefined || item.namespace === null ? undefined : requireString(item.namespace, `${path}.namespace`);
  const name = namespace ? flatToolName(namespace, bare) : bare;
  const args = requireString(item.arguments, `${path}.arguments`, false);
  reader.callNames.set(id, name);
  assistantTurn(reader).parts.push({ type: 'tool_call', id, name, arguments: args });
}

function readFunctionCallOutput(item: Record<string, unknown>, i: number, reader: InputReader): void {
  const path = `input[${i}]`;
  const callId = requireString(item.call_id, `${path}.call_id`);
  let content: ToolResultContent;
  if (typeof item.output === 'string') content = item.output;
  else if (Array.isArray(item.output)) content = readContentParts(item.output, `${path}.output`, reader, true);
  else throw invalidRequest(`'${path}.output' must be a string or a list of content parts`, `${path}.output`);
  const name = reader.callNames.get(callId);
  toolResultTurn(reader).parts.push({ type: 'tool_result', callId, ...(name !== undefined ? { name } : {}), content });
}

function readReasoning(item: Record<string, unknown>, i: number, reader: InputReader): void {
  const path = `input[${i}]`;
  const texts = (list: unknown, key: string): string[] =>
    asArray(list).flatMap((part, j) => {
      const text = asRecord(part).text;
      if (typeof text !== 'string') throw invalidRequest(`'${path}.${key}[${j}].text' must be a string`, `${path}.${key}[${j}].text`);
      return text === '' ? [] : [text];
    });
  if (present(item.summary) && !Array.isArray(item.summary)) throw invalidRequest(`'${path}.summary' must be a list`, `${path}.summary`);
  let text = texts(item.summary, 'summary').join('\n\n');
  if (!text && Array.isArray(item.content)) text = texts(item.content, 'content').join('\n\n');
  const encrypted = asString(item.encrypted_content);
  if (!text && !encrypted) {
    reader.leading = false;
    return;
  }
  assistantTurn(reader).parts.push({ type: 'reasoning', text, ...(encrypted ? { encrypted } : {}) });
}

/** Function tools (top level, in a namespace, or in an `additional_tools` item) → canonical; the rest → extensions. */
function readTools(list: unknown, path: string, request: CanonicalRequest): void {
  if (!Array.isArray(list)) throw invalidRequest(`'${path}' must be a list of tools`, path);
  const tools = (request.tools ??= []);
  const functionTool = (raw: Record<string, unknown>, param: string, namespace?: { name: string; description?: string }): ToolDefinition => {
    const name = requireString(raw.name, `${param}.name`);
    const description = raw.description === undefined || raw.description === null ? undefined : requireString(raw.description, `${param}.description`, false);
    if (present(raw.parameters) && !isPlainObject(raw.parameters)) throw invalidRequest(`'${param}.parameters' must be a JSON Schema object`, `${param}.parameters`);
    const parameters = isPlainObject(raw.parameters) ? raw.parameters : { type: 'object', properties: {} };
    const strict = optionalBoolean(raw.strict, `${param}.strict`);
    const tool: ToolDefinition = { name: namespace ? flatToolName(namespace.name, name) : name, parameters };
    if (description !== undefined) tool.description = description;
    if (strict !== undefined) tool.strict = strict;
    if (namespace) tool.namespace = { namespace: namespace.name, name, ...(namespace.description ? { description: namespace.description } : {}) };
    return tool;
  };
  list.forEach((raw, k) => {
    const param = `${path}[${k}]`;
    if (!isPlainObject(raw)) throw invalidRequest(`'${param}' must be an object with a 'type'`, param);
    if (raw.type === 'function') tools.push(functionTool(raw, param));
    else if (raw.type === 'namespace') {
      const namespace = requireString(raw.name, `${param}.name`);
      const description = asString(raw.description);
      if (!Array.isArray(raw.tools)) throw invalidRequest(`'${param}.tools' must be a list of tools`, `${param}.tools`);
      raw.tools.forEach((member, m) => {
        const memberParam = `${param}.tools[${m}]`;
        if (isPlainObject(member) && member.type === 'function') tools.push(functionTool(member, memberParam, { name: namespace, description }));
        else request.extensions[memberParam] = member;
      });
    } else {
      request.extensions[param] = raw; // custom, web_search, file_search, mcp, local_shell …: Responses-only
    }
  });
}

function readToolChoice(value: unknown, request: CanonicalRequest): ToolChoice | undefined {
  if (!present(value)) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { mode: value };
  if (isPlainObject(value)) {
    if (value.type === 'function') return { mode: 'tool', name: requireString(value.name, 'tool_choice.name') };
    request.extensions.tool_choice = value; // allowed_tools, a hosted tool, mcp, custom
    return undefined;
  }
  throw invalidRequest(`'tool_choice' must be "auto", "none", "required" or {"type":"function","name":…}`, 'tool_choice');
}

function readTextFormat(value: unknown, request: CanonicalRequest): ResponseFormat | undefined {
  if (!present(value)) return undefined;
  if (!isPlainObject(value)) throw invalidRequest(`'text.format' must be an object with a 'type'`, 'text.format');
  if (value.type === 'text' || value.type === 'json_object') return { type: value.type };
  if (value.type === 'json_schema') {
    const name = requireString(value.name, 'text.format.name');
    if (!isPlainObject(value.schema)) throw invalidRequest(`'text.format.schema' must be a JSON Schema object`, 'text.format.schema');
    const strict = optionalBoolean(value.strict, 'text.format.strict');
    if (present(value.description)) request.extensions['text.format.description'] = value.description;
    return { type: 'json_schema', name, schema: value.schema, ...(strict !== undefined ? { strict } : {}) };
  }
  throw invalidRequest(`'text.format.type' must be one of text, json_object, json_schema`, 'text.format.type');
}

const HANDLED_KEYS = new Set(['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_output_tokens', 'temperature', 'top_p', 'reasoning', 'text', 'stream', 'user', 'safety_identifier', 'top_logprobs', 'include']);

/** A Responses request body → canonical. Throws a 400 naming the field for a malformed body. */
export function decodeResponsesRequest(json: unknown): CanonicalRequest {
  if (!isPlainObject(json)) throw invalidRequest('The request body must be a JSON object', null);
  const body = json;
  const model = requireString(body.model, 'model');
  const request: CanonicalRequest = { dialect: 'openai-responses', onUnsupported: 'drop', model, system: [], turns: [], stream: false, extensions: {} };

  if (present(body.instructions)) {
    const instructions = requireString(body.instructions, 'instructions', false);
    if (instructions !== '') request.system.push({ type: 'text', text: instructions });
  }

  const reader: InputReader = { request, leading: true, callNames: new Map() };
  if (typeof body.input === 'string') {
    if (body.input !== '') request.turns.push({ role: 'user', parts: [{ type: 'text', text: body.input }] });
  } else if (Array.isArray(body.input)) {
    body.input.forEach((item, i) => {
      if (!isPlainObject(item)) throw invalidRequest(`'input[${i}]' must be an object`, `input[${i}]`);
      switch (item.type) {
        case undefined:
        case 'message':
          return readMessage(item, i, reader);
        case 'function_call':
          return readFunctionCall(item, i, reader);
        case 'function_call_output':
          return readFunctionCallOutput(item, i, reader);
        case 'reasoning':
          return readReasoning(item, i, reader);
        case 'additional_tools':
          return readTools(item.tools, `input[${i}].tools`, request);
        default:
          if (typeof item.type !== 'string') throw invalidRequest(`'input[${i}].type' must be a string`, `input[${i}].type`);
          request.extensions[`input[${i}]`] = item; // web_search_call, custom_tool_call(_output), local_shell_call, item_reference …
      }
    });
  } else if (present(body.input)) {
    throw invalidRequest(`'input' must be a string or a list of input items`, 'input');
  }

  if (present(body.tools)) readTools(body.tools, 'tools', request);
  const toolChoice = readToolChoice(body.tool_choice, request);
  if (toolChoice) request.toolChoice = toolChoice;
  const parallel = optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxOutput = optionalNumber(body.max_output_tokens, 'max_output_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  if (maxOutput !== undefined) request.maxOutputTokens = maxOutput;
  const temperature = optionalNumber(body.temperature, 'temperature', 0, 2);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(body.top_p, 'top_p', 0, 1);
  if (topP !== undefined) request.topP = topP;

  if (present(body.reasoning)) {
    if (!isPlainObject(body.reasoning)) throw invalidRequest(`'reasoning' must be an object`, 'reasoning');
    for (const [key, value] of Object.entries(body.reasoning)) {
      if (key !== 'effort') request.extensions[`reasoning.${key}`] = value; // summary, generate_summary, context …
    }
    const effort = body.reasoning.effort;
    if (effort === 'none') request.reasoning = { enabled: false };
    else if (typeof effort === 'string' && EFFORTS[effort]) request.reasoning = { enabled: true, effort: EFFORTS[effort] };
    else if (present(effort)) throw invalidRequest(`'reasoning.effort' must be one of none, minimal, low, medium, high, xhigh`, 'reasoning.effort');
  }

  if (present(body.text)) {
    if (!isPlainObject(body.text)) throw invalidRequest(`'text' must be an object`, 'text');
    for (const [key, value] of Object.entries(body.text)) {
      if (key !== 'format') request.extensions[`text.${key}`] = value; // verbosity
    }
    const format = readTextFormat(body.text.format, request);
    if (format) request.responseFormat = format;
  }

  const stream = optionalBoolean(body.stream, 'stream');
  if (stream !== undefined) request.stream = stream;
  if (present(body.user)) request.user = requireString(body.user, 'user', false);
  if (present(body.safety_identifier)) {
    const id = requireString(body.safety_identifier, 'safety_identifier', false);
    if (request.user === undefined) request.user = id;
    else request.extensions.safety_identifier = id;
  }

  let include: unknown[] = [];
  if (present(body.include)) {
    if (!Array.isArray(body.include)) throw invalidRequest(`'include' must be a list of strings`, 'include');
    include = body.include;
  }
  const topLogprobs = optionalNumber(body.top_logprobs, 'top_logprobs', 0, 20, true);
  if (include.includes(LOGPROBS_INCLUDE)) request.logprobs = { top: topLogprobs ?? 0 };
  else if (topLogprobs !== undefined) request.extensions.top_logprobs = topLogprobs;
  const otherIncludes = include.filter((entry) => entry !== LOGPROBS_INCLUDE);
  if (otherIncludes.length) request.extensions.include = otherIncludes;

  for (const [key, value] of Object.entries(body)) {
    if (!HANDLED_KEYS.has(key) && value !== undefined) request.extensions[key] = value; // store, metadata, prompt_cache_key, client_metadata …
  }
  return request;
}

/**
 * What only a provider that stores responses and files (OpenAI's own Responses API) can honour, as the
 * 400 to answer when the target is not Responses-native: `previous_response_id`, `conversation`, `background`,
 * a stored `prompt`, `item_reference` items, files and images given by `file_id`, `input_file` and `input_audio`.
 * The integrator calls this before translating; `decodeRequest` keeps these as extensions and never throws them.
 */
export function refusesStatefulFields(json: unknown): GatewayError | undefined {
  const body = asRecord(json);
  const stateless = "send the whole conversation in 'input' instead";
  if (present(body.previous_response_id)) {
    return invalidRequest(`Gatehouse keeps no conversation state: 'previous_response_id' needs a provider that stores responses (OpenAI); ${stateless}`, 'previous_response_id');
  }
  if (present(body.conversation)) {
    return invalidRequest(`Gatehouse keeps no conversation state: 'conversation' needs a provider that stores conversations (OpenAI); ${stateless}`, 'conversation');
  }
  if (body.background === true) {
    return invalidRequest(`Gatehouse keeps no conversation state: 'background' runs a response at OpenAI to be fetched later, which this provider cannot do; send the request with 'stream' instead`, 'background');
  }
  if (present(body.prompt)) {
    return invalidRequest(`'prompt' names a prompt template stored at OpenAI, which this provider cannot read; send the prompt's text in 'instructions' and 'input' instead`, 'prompt');
  }
  const partProblem = (part: unknown, param: string): GatewayError | undefined => {
    const record = asRecord(part);
    if (record.type === 'input_image' && !(typeof record.image_url === 'string' && record.image_url !== '') && present(record.file_id)) {
      return invalidRequest(`'${param}' is an image stored at OpenAI ('file_id'), which this provider cannot read; send it as 'image_url' (an http(s) URL or a data URL) instead`, `${param}.file_id`);
    }
    if (record.type === 'input_file') return invalidRequest(`'${param}': files ('input_file') can only be sent to a provider that speaks the Responses API (OpenAI)`, param);
    if (record.type === 'input_audio') return invalidRequest(`'${param}': audio ('input_audio') can only be sent to a provider that speaks the Responses API (OpenAI)`, param);
    return undefined;
  };
  const input = asArray(body.input);
  for (let i = 0; i < input.length; i++) {
    const item = asRecord(input[i]);
    if (item.type === 'item_reference') {
      return invalidRequest(`Gatehouse keeps no conversation state: 'input[${i}]' refers to an item stored at OpenAI; ${stateless}`, `input[${i}]`);
    }
    const lists: [unknown, string][] = [
      [item.content, `input[${i}].content`],
      [item.output, `input[${i}].output`],
    ];
    for (const [list, path] of lists) {
      const parts = asArray(list);
      for (let j = 0; j < parts.length; j++) {
        const problem = partProblem(parts[j], `${path}[${j}]`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

// ───────────────────────────── request: canonical → Responses body ─────────────────────────────

/** Canonical tools → Responses tools; tools flattened from a namespace are grouped back into it. */
function responsesTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const namespaces = new Map<string, Record<string, unknown>[]>();
  for (const tool of tools) {
    const fn: Record<string, unknown> = { type: 'function', name: tool.namespace?.name ?? tool.name };
    if (tool.description !== undefined) fn.description = tool.description;
    fn.parameters = tool.parameters;
    // Chat and Messages tools are not strict unless they say so; Responses would otherwise try strict mode.
    fn.strict = tool.strict ?? false;
    if (!tool.namespace) {
      out.push(fn);
      continue;
    }
    let members = namespaces.get(tool.namespace.namespace);
    if (!members) {
      members = [];
      namespaces.set(tool.namespace.namespace, members);
      out.push({ type: 'namespace', name: tool.namespace.namespace, description: tool.namespace.description ?? '', tools: members });
    }
    members.push(fn);
  }
  return out;
}

/** A flattened tool name → its namespace and name, for the tools of this request that came from a namespace. */
function namespaceIndex(request: CanonicalRequest): Map<string, { namespace: string; name: string }> {
  const index = new Map<string, { namespace: string; name: string }>();
  for (const tool of request.tools ?? []) if (tool.namespace) index.set(tool.name, tool.namespace);
  return index;
}

function functionCallName(name: string, namespaces: Map<string, { namespace: string; name: string }>): { name: string; namespace?: string } {
  const origin = namespaces.get(name);
  return origin ? { name: origin.name, namespace: origin.namespace } : { name };
}

const inputContent = (part: TextPart | ImagePart): Record<string, unknown> =>
  part.type === 'text' ? { type: 'input_text', text: part.text } : { type: 'input_image', image_url: imageUrl(part.source), detail: 'auto' };

function toolOutput(content: ToolResultContent): string | Record<string, unknown>[] {
  if (typeof content === 'string') return content;
  const parts = content.filter((part) => part.type !== 'text' || part.text !== '').map(inputContent);
  if (parts.every((part) => part.type === 'input_text')) return parts.map((part) => part.text as string).join('');
  return parts;
}

const budgetEffort = (budget: number): ReasoningEffort => (budget <= 2048 ? 'low' : budget <= 16384 ? 'medium' : 'high');

/** Puts a dotted extension name (`text.verbosity`) back where it came from. */
function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = body;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

function encodeResponsesRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
  const dropped: string[] = [];
  const body: Record<string, unknown> = { model: request.model };
  const instructions = joinText(request.system, '\n\n');
  if (instructions) body.instructions = instructions;

  const namespaces = namespaceIndex(request);
  const input: Record<string, unknown>[] = [];
  const calls = new Set<string>();
  for (const turn of request.turns) {
    let content: Record<string, unknown>[] = [];
    const role = turn.role === 'system' ? 'developer' : turn.role;
    const flush = () => {
      if (content.length) input.push({ type: 'message', role, content });
      content = [];
    };
    for (const part of turn.parts) {
      if (part.type === 'text') {
        if (part.text === '') continue;
        content.push(turn.role === 'assistant' ? { type: 'output_text', text: part.text } : { type: 'input_text', text: part.text });
      } else if (part.type === 'image') {
        if (turn.role !== 'user') throw invalidRequest(`Images can only be sent in user messages to provider '${target.provider}'`, fieldName(request, 'turns'));
        content.push(inputContent(part));
      } else if (part.type === 'tool_call' && turn.role === 'assistant') {
        flush();
        calls.add(part.id);
        input.push({ type: 'function_call', call_id: part.id, ...functionCallName(part.name, namespaces), arguments: part.arguments });
      } else if (part.type === 'tool_result' && turn.role === 'user') {
        flush();
        if (!calls.has(part.callId)) {
          throw invalidRequest(`A tool result names call '${part.callId}', which no earlier assistant message made`, fieldName(request, 'turns'));
        }
        input.push({ type: 'function_call_output', call_id: part.callId, output: toolOutput(part.content) });
      } else if (part.type === 'reasoning' && turn.role === 'assistant' && part.encrypted) {
        // Only OpenAI's own encrypted reasoning can go back; other providers' thinking has no place here.
        flush();
        input.push({ type: 'reasoning', summary: part.text ? [{ type: 'summary_text', text: part.text }] : [], encrypted_content: part.encrypted });
      }
    }
    flush();
  }
  if (!input.length) throw invalidRequest('The conversation has no messages to send: add a user message', fieldName(request, 'turns'));
  body.input = input;

  if (request.tools?.length) body.tools = responsesTools(request.tools);
  if (request.toolChoice) body.tool_choice = request.toolChoice.mode === 'tool' ? { type: 'function', name: request.toolChoice.name } : request.toolChoice.mode;
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) cannotHonour(request, target, dropped, 'topK');
  if (request.stop?.length) cannotHonour(request, target, dropped, 'stop');
  if (request.seed !== undefined) cannotHonour(request, target, dropped, 'seed');
  if (request.presencePenalty !== undefined) cannotHonour(request, target, dropped, 'presencePenalty');
  if (request.frequencyPenalty !== undefined) cannotHonour(request, target, dropped, 'frequencyPenalty');
  if (request.n !== undefined && request.n > 1) cannotHonour(request, target, dropped, 'n');
  if (request.reasoning?.enabled) {
    const effort = request.reasoning.effort ?? (request.reasoning.budgetTokens !== undefined ? budgetEffort(request.reasoning.budgetTokens) : undefined);
    if (effort) body.reasoning = { effort };
  } else if (request.reasoning?.enabled === false && request.dialect === 'openai-responses') {
    // A Responses client's own `reasoning.effort: "none"` goes back as it came (other dialects' "off" stays unsaid).
    body.reasoning = { effort: 'none' };
  }
  if (request.responseFormat) {
    const format = request.responseFormat;
    body.text = { format: format.type === 'json_schema' ? { type: 'json_schema', name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) } : { type: format.type } };
  }
  if (request.logprobs) {
    body.include = [LOGPROBS_INCLUDE];
    body.top_logprobs = request.logprobs.top;
  }
  if (request.user !== undefined) body.user = request.user;

  const extensions = Object.entries(request.extensions);
  if (request.dialect === 'openai-responses') {
    // The same dialect (a fallback from OpenAI to Azure, say): its own fields go back where they were.
    const items: [number, unknown][] = [];
    const tools: unknown[] = [];
    for (const [key, value] of extensions) {
      const item = /^input\[(\d+)\]$/.exec(key);
      if (item) items.push([Number(item[1]), value]);
      else if (/^tools\[\d+\]$/.test(key)) tools.push(value);
      else if (key === 'include') body.include = [...asArray(body.include), ...asArray(value)];
      else if (/^[a-z_]+(\.[a-z_]+)*$/.test(key)) setPath(body, key, value);
      else cannotHonour(request, target, dropped, key); // a part or a namespace member: no way back to its place
    }
    for (const [index, value] of items.sort((a, b) => a[0] - b[0])) input.splice(Math.min(index, input.length), 0, value as Record<string, unknown>);
    if (tools.length) body.tools = [...asArray(body.tools), ...tools];
  } else {
    for (const [key] of extensions) cannotHonour(request, target, dropped, key);
  }
  body.store = false; // Gatehouse is stateless: nothing is kept at the provider for a later previous_response_id
  body.stream = request.stream;
  return { body, dropped };
}

// ───────────────────────────── answers: Responses → canonical ─────────────────────────────

/**
 * The one reader of Responses usage: translated answers and answers relayed unchanged (usage-from-body.ts)
 * alike. `cache_write_tokens` counts: Gatehouse writes it in the answers it translates (Codex reads it).
 */
export function readResponsesUsage(raw: unknown): Usage | undefined {
  if (!isPlainObject(raw)) return undefined;
  const usage: Usage = { inputTokens: asNumber(raw.input_tokens), outputTokens: asNumber(raw.output_tokens) };
  const details = asRecord(raw.input_tokens_details);
  if (typeof details.cached_tokens === 'number') usage.cacheReadTokens = details.cached_tokens;
  if (typeof details.cache_write_tokens === 'number' && details.cache_write_tokens > 0) usage.cacheWriteTokens = details.cache_write_tokens;
  const reasoning = asRecord(raw.output_tokens_details).reasoning_tokens;
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning;
  return usage;
}

function logprobsOf(raw: unknown): TokenLogprob[] {
  return asArray(raw).map((entry) => {
    const record = asRecord(entry);
    const token: TokenLogprob = { token: asString(record.token) ?? '', logprob: asNumber(record.logprob) };
    if (Array.isArray(record.top_logprobs)) token.top = record.top_logprobs.map((top) => ({ token: asString(asRecord(top).token) ?? '', logprob: asNumber(asRecord(top).logprob) }));
    return token;
  });
}

const toolNameOf = (item: Record<string, unknown>): string => {
  const name = asString(item.name) ?? '';
  const namespace = asString(item.namespace);
  return namespace ? flatToolName(namespace, name) : name;
};

function summaryText(item: Record<string, unknown>): string {
  const summary = asArray(item.summary).map((part) => asString(asRecord(part).text) ?? '').filter(Boolean);
  if (summary.length) return summary.join('\n\n');
  return asArray(item.content).map((part) => asString(asRecord(part).text) ?? '').filter(Boolean).join('\n\n');
}

function failure(response: Record<string, unknown>): ProviderStreamError {
  const error = asRecord(response.error);
  return new ProviderStreamError(asString(error.message) ?? 'The provider reported that the response failed', 'api_error', asString(error.code) ?? null);
}

/** Completed → stop (tool_calls when there were calls); incomplete → length or content_filter. */
function finishOf(response: Record<string, unknown>, sawToolCall: boolean, sawRefusal: boolean): FinishReason {
  if (response.status === 'incomplete') return asRecord(response.incomplete_details).reason === 'content_filter' ? 'content_filter' : 'length';
  if (sawToolCall) return 'tool_calls';
  return sawRefusal ? 'content_filter' : 'stop';
}

function decodeResponsesResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const response = asRecord(json);
  if (response.status === 'failed' || (isPlainObject(response.error) && response.status !== 'completed')) throw failure(response);
  const events: CanonicalEvent[] = [{ type: 'start', ...(asString(response.id) ? { id: asString(response.id) } : {}), ...(asString(response.model) ? { model: asString(response.model) } : {}) }];
  let toolIndex = 0;
  let refusal = false;
  for (const raw of asArray(response.output)) {
    const item = asRecord(raw);
    if (item.type === 'message') {
      for (const part of asArray(item.content)) {
        const record = asRecord(part);
        if (record.type === 'output_text' && typeof record.text === 'string') {
          if (record.text) events.push({ type: 'text', text: record.text });
          if (request.logprobs && Array.isArray(record.logprobs) && record.logprobs.length) events.push({ type: 'logprobs', tokens: logprobsOf(record.logprobs) });
        } else if (record.type === 'refusal' && typeof record.refusal === 'string') {
          refusal = true;
          if (record.refusal) events.push({ type: 'text', text: record.refusal });
        }
      }
    } else if (item.type === 'function_call') {
      const index = toolIndex++;
      events.push({ type: 'tool_call_start', index, id: asString(item.call_id) ?? asString(item.id) ?? '', name: toolNameOf(item) });
      const args = asString(item.arguments) ?? '';
      if (args) events.push({ type: 'tool_call_delta', index, arguments: args });
      events.push({ type: 'tool_call_end', index });
    } else if (item.type === 'reasoning') {
      const text = summaryText(item);
      if (text) events.push({ type: 'reasoning', text });
      const encrypted = asString(item.encrypted_content);
      if (encrypted) events.push({ type: 'reasoning_encrypted', data: encrypted });
    }
  }
  const usage = readResponsesUsage(response.usage);
  if (usage) events.push({ type: 'usage', usage });
  events.push({ type: 'finish', reason: finishOf(response, toolIndex > 0, refusal) });
  return foldEvents(events, { id: asString(response.id) ?? '', model: asString(response.model) ?? request.model });
}

/** Reads a Responses SSE stream: one upstream event in, canonical events out, as soon as they are known. */
class ResponsesStreamDecoder implements StreamDecoder {
  readonly framing = 'sse' as const;
  private started = false;
  private ended = false;
  private toolCount = 0;
  private refusal = false;
  /** output_index to the tool call's canonical index, whether arguments arrived as deltas, and whether it ended. */
  private readonly calls = new Map<number, { index: number; deltas: boolean; ended: boolean }>();
  /** output_index of message and reasoning items whose text arrived as deltas. */
  private readonly streamed = new Set<number>();
  /** Reasoning items (output_index) whose summary is under way, and the last summary part seen in each. */
  private readonly summaryParts = new Map<number, number>();

  constructor(private readonly request: CanonicalRequest) {}

  onEvent(event: UpstreamEvent): CanonicalEvent[] {
    if (event.kind !== 'sse' || event.data === '' || event.data === '[DONE]') return [];
    let data: Record<string, unknown>;
    try {
      data = asRecord(JSON.parse(event.data));
    } catch {
      throw new ProviderStreamError('The provider sent a stream event that is not JSON', 'api_error', 'invalid_stream');
    }
    const type = asString(data.type) ?? event.event;
    const out: CanonicalEvent[] = [];
    const outputIndex = typeof data.output_index === 'number' ? data.output_index : -1;
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued': {
        if (!this.started) {
          this.started = true;
          const response = asRecord(data.response);
          out.push({ type: 'start', ...(asString(response.id) ? { id: asString(response.id) } : {}), ...(asString(response.model) ? { model: asString(response.model) } : {}) });
        }
        break;
      }
      case 'response.output_item.added': {
        const item = asRecord(data.item);
        if (item.type === 'function_call') this.startCall(outputIndex, item, out);
        break;
      }
      case 'response.output_text.delta': {
        const delta = asString(data.delta) ?? '';
        this.streamed.add(outputIndex);
        if (delta) out.push({ type: 'text', text: delta });
        if (this.request.logprobs && Array.isArray(data.logprobs) && data.logprobs.length) out.push({ type: 'logprobs', tokens: logprobsOf(data.logprobs) });
        break;
      }
      case 'response.refusal.delta': {
        this.refusal = true;
        this.streamed.add(outputIndex);
        const delta = asString(data.delta) ?? '';
        if (delta) out.push({ type: 'text', text: delta });
        break;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const delta = asString(data.delta) ?? '';
        const part = typeof data.summary_index === 'number' ? data.summary_index : typeof data.content_index === 'number' ? data.content_index : 0;
        const last = this.summaryParts.get(outputIndex);
        this.streamed.add(outputIndex);
        this.summaryParts.set(outputIndex, part);
        // A new summary part of the same item reads as a new paragraph.
        if (last !== undefined && last !== part && delta) out.push({ type: 'reasoning', text: '\n\n' });
        if (delta) out.push({ type: 'reasoning', text: delta });
        break;
      }
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(outputIndex);
        const delta = asString(data.delta) ?? '';
        if (call && delta) {
          call.deltas = true;
          out.push({ type: 'tool_call_delta', index: call.index, arguments: delta });
        }
        break;
      }
      case 'response.output_item.done':
        this.itemDone(outputIndex, asRecord(data.item), out);
        break;
      case 'response.completed':
      case 'response.incomplete': {
        const response = asRecord(data.response);
        if (!this.started) {
          this.started = true;
          out.push({ type: 'start', ...(asString(response.id) ? { id: asString(response.id) } : {}), ...(asString(response.model) ? { model: asString(response.model) } : {}) });
        }
        for (const call of this.calls.values()) {
          if (!call.ended) {
            call.ended = true;
            out.push({ type: 'tool_call_end', index: call.index });
          }
        }
        const usage = readResponsesUsage(response.usage);
        if (usage) out.push({ type: 'usage', usage });
        out.push({ type: 'finish', reason: finishOf({ ...response, status: type === 'response.incomplete' ? 'incomplete' : response.status }, this.toolCount > 0, this.refusal) });
        this.ended = true;
        break;
      }
      case 'response.failed':
        throw failure(asRecord(data.response));
      case 'error': {
        const error = isPlainObject(data.error) ? data.error : data;
        throw new ProviderStreamError(asString(error.message) ?? 'The provider reported an error in the stream', asString(error.type) ?? 'api_error', asString(error.code) ?? null);
      }
      default:
        break; // content_part.*, *.done, web_search_call.*, keepalive … carry nothing new for canonical
    }
    return out;
  }

  onEnd(): CanonicalEvent[] {
    if (!this.ended) throw new ProviderStreamError('The provider ended the stream before response.completed', 'api_error', 'stream_incomplete');
    return [];
  }

  private startCall(outputIndex: number, item: Record<string, unknown>, out: CanonicalEvent[]): { index: number; deltas: boolean; ended: boolean } {
    const call = { index: this.toolCount++, deltas: false, ended: false };
    this.calls.set(outputIndex, call);
    out.push({ type: 'tool_call_start', index: call.index, id: asString(item.call_id) ?? asString(item.id) ?? '', name: toolNameOf(item) });
    return call;
  }

  /** An item's final form: what did not arrive as deltas (some servers send only this) comes from it. */
  private itemDone(outputIndex: number, item: Record<string, unknown>, out: CanonicalEvent[]): void {
    if (item.type === 'function_call') {
      const call = this.calls.get(outputIndex) ?? this.startCall(outputIndex, item, out);
      const args = asString(item.arguments) ?? '';
      if (!call.deltas && args) out.push({ type: 'tool_call_delta', index: call.index, arguments: args });
      call.deltas = true;
      if (!call.ended) {
        call.ended = true;
        out.push({ type: 'tool_call_end', index: call.index });
      }
    } else if (item.type === 'message' && !this.streamed.has(outputIndex)) {
      for (const part of asArray(item.content)) {
        const record = asRecord(part);
        const text = record.type === 'output_text' ? asString(record.text) : record.type === 'refusal' ? asString(record.refusal) : undefined;
        if (record.type === 'refusal') this.refusal = true;
        if (text) out.push({ type: 'text', text });
      }
    } else if (item.type === 'reasoning') {
      if (!this.streamed.has(outputIndex)) {
        const text = summaryText(item);
        if (text) out.push({ type: 'reasoning', text });
      }
      const encrypted = asString(item.encrypted_content);
      if (encrypted) out.push({ type: 'reasoning_encrypted', data: encrypted });
    }
  }
}

// ───────────────────────────── answers: canonical → Responses ─────────────────────────────

type OutputItem = Record<string, unknown> & { id: string; type: string };

interface OpenMessage {
  kind: 'message';
  outputIndex: number;
  item: OutputItem;
  text: string;
  logprobs: Record<string, unknown>[];
}
interface OpenReasoning {
  kind: 'reasoning';
  outputIndex: number;
  item: OutputItem;
  /** The summary part being written, if any. */
  summary?: { index: number; text: string };
}
interface OpenCall {
  outputIndex: number;
  item: OutputItem;
}

const responseId = (id: string | undefined): string => {
  if (id?.startsWith('resp_')) return id;
  const cleaned = (id ?? '').replace(/[^A-Za-z0-9]/g, '');
  return `resp_${cleaned || randomUUID().replace(/-/g, '')}`;
};

function usageJson(usage: Usage | undefined): Record<string, unknown> | null {
  if (!usage) return null;
  const inputDetails: Record<string, number> = { cached_tokens: usage.cacheReadTokens ?? 0 };
  if (usage.cacheWriteTokens) inputDetails.cache_write_tokens = usage.cacheWriteTokens; // Codex reads it; OpenAI has none to report
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: inputDetails,
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

const errorCode = (error: GatewayError): string => {
  if (typeof error.code === 'string' && error.code) return error.code;
  if (error.type === 'rate_limit_error' || error.status === 429) return 'rate_limit_exceeded';
  if (error.status === 400) return 'invalid_prompt';
  return 'server_error';
};

/**
 * Writes a Responses answer as OpenAI does: the stream of events (each with its `sequence_number`) and the
 * Response object they add up to. `encodeResponse` runs a held answer through the same writer.
 */
class ResponsesWriter {
  private sequence = 0;
  private started = false;
  private id: string;
  private model: string;
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly output: OutputItem[] = [];
  private open: OpenMessage | OpenReasoning | undefined;
  private readonly calls = new Map<number, OpenCall>();
  private readonly namespaces: Map<string, { namespace: string; name: string }>;
  private usage: Usage | undefined;
  private finish: FinishReason | undefined;
  private itemCount = 0;

  constructor(private readonly request: CanonicalRequest) {
    this.id = responseId(undefined);
    this.model = request.model;
    this.namespaces = namespaceIndex(request);
  }

  onEvent(event: CanonicalEvent): string {
    let out = '';
    if (event.type === 'start') {
      if (!this.started) {
        if (event.id) this.id = responseId(event.id);
        if (event.model) this.model = event.model;
      }
      return this.ensureStarted();
    }
    out += this.ensureStarted();
    switch (event.type) {
      case 'text': {
        if (event.text === '') break;
        const { message, text } = this.openMessage();
        out += text;
        message.text += event.text;
        out += this.frame('response.output_text.delta', { item_id: message.item.id, output_index: message.outputIndex, content_index: 0, delta: event.text, logprobs: [] });
        break;
      }
      case 'logprobs':
        if (this.open?.kind === 'message') {
          const message = this.open;
          message.logprobs.push(...event.tokens.map((token) => ({ token: token.token, logprob: token.logprob, bytes: [], top_logprobs: (token.top ?? []).map((top) => ({ token: top.token, logprob: top.logprob, bytes: [] })) })));
        }
        break;
      case 'reasoning': {
        if (event.text === '') break;
        // Text after an item's encrypted content starts a new item: the decoder reads an item's summary before its blob.
        const { reasoning, text } = this.openReasoning(this.open?.kind === 'reasoning' && this.open.item.encrypted_content !== undefined);
        out += text;
        if (!reasoning.summary) {
          reasoning.summary = { index: asArray(reasoning.item.summary).length, text: '' };
          out += this.frame('response.reasoning_summary_part.added', { item_id: reasoning.item.id, output_index: reasoning.outputIndex, summary_index: reasoning.summary.index, part: { type: 'summary_text', text: '' } });
        }
        reasoning.summary.text += event.text;
        out += this.frame('response.reasoning_summary_text.delta', { item_id: reasoning.item.id, output_index: reasoning.outputIndex, summary_index: reasoning.summary.index, delta: event.text });
        break;
      }
      case 'reasoning_signature':
        break; // Anthropic's signature is not OpenAI's encrypted reasoning: nothing in a Response can carry it
      case 'reasoning_encrypted': {
        const { reasoning, text } = this.open?.kind === 'reasoning' && this.open.item.encrypted_content === undefined ? { reasoning: this.open, text: '' } : this.openReasoning(true);
        out += text;
        reasoning.item.encrypted_content = event.data;
        break;
      }
      case 'tool_call_start': {
        out += this.closeOpen();
        const outputIndex = this.output.length;
        const item: OutputItem = { id: this.itemId('fc'), type: 'function_call', status: 'in_progress', arguments: '', call_id: event.id, ...functionCallName(event.name, this.namespaces) };
        this.output.push(item);
        this.calls.set(event.index, { outputIndex, item });
        out += this.frame('response.output_item.added', { output_index: outputIndex, item: { ...item } });
        break;
      }
      case 'tool_call_delta': {
        const call = this.calls.get(event.index);
        if (!call || event.arguments === '') break;
        call.item.arguments = (call.item.arguments as string) + event.arguments;
        out += this.frame('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.outputIndex, delta: event.arguments });
        break;
      }
      case 'tool_call_end':
        out += this.closeCall(event.index);
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      case 'finish':
        this.finish = event.reason;
        out += this.closeAll();
        break;
    }
    return out;
  }

  onEnd(): string {
    let out = this.ensureStarted();
    out += this.closeAll();
    const response = this.response();
    const type = response.status === 'incomplete' ? 'response.incomplete' : response.status === 'failed' ? 'response.failed' : 'response.completed';
    return out + this.frame(type, { response });
  }

  onError(error: GatewayError): string {
    const out = this.ensureStarted();
    const response = { ...this.response(), status: 'failed', incomplete_details: null, error: { code: errorCode(error), message: error.message } };
    return out + this.frame('response.failed', { response });
  }

  /** The Response object as it stands: after `onEnd`, the whole answer. */
  response(): Record<string, unknown> {
    let status = 'completed';
    let incomplete: Record<string, unknown> | null = null;
    let error: Record<string, unknown> | null = null;
    if (this.finish === 'length' || this.finish === 'content_filter') {
      status = 'incomplete';
      incomplete = { reason: this.finish === 'length' ? 'max_output_tokens' : 'content_filter' };
    } else if (this.finish === 'error') {
      status = 'failed';
      error = { code: 'server_error', message: 'The provider ended the answer with an error' };
    }
    return { ...this.base(status), error, incomplete_details: incomplete, output: this.output.map((item) => structuredClone(item)), usage: usageJson(this.usage) };
  }

  private base(status: string): Record<string, unknown> {
    const request = this.request;
    const format = request.responseFormat;
    return {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status,
      background: false,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: request.maxOutputTokens ?? null,
      model: this.model,
      output: [],
      parallel_tool_calls: request.parallelToolCalls ?? true,
      previous_response_id: null,
      reasoning: { effort: request.reasoning?.enabled === false ? 'none' : (request.reasoning?.effort ?? null), summary: asString(request.extensions['reasoning.summary']) ?? null },
      store: false,
      temperature: request.temperature ?? 1,
      text: { format: format?.type === 'json_schema' ? { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict ?? false } : { type: format?.type ?? 'text' } },
      tool_choice: !request.toolChoice ? 'auto' : request.toolChoice.mode === 'tool' ? { type: 'function', name: request.toolChoice.name } : request.toolChoice.mode,
      tools: responsesTools(request.tools ?? []),
      top_p: request.topP ?? 1,
      truncation: 'disabled',
      usage: null,
      user: request.user ?? null,
      metadata: {},
    };
  }

  private frame(type: string, payload: Record<string, unknown>): string {
    const event = { type, sequence_number: this.sequence++, ...payload };
    return `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
  }

  private itemId(prefix: string): string {
    return `${prefix}_${this.id.slice('resp_'.length)}_${this.itemCount++}`;
  }

  private ensureStarted(): string {
    if (this.started) return '';
    this.started = true;
    const response = this.base('in_progress');
    return this.frame('response.created', { response }) + this.frame('response.in_progress', { response });
  }

  private openMessage(): { message: OpenMessage; text: string } {
    if (this.open?.kind === 'message') return { message: this.open, text: '' };
    let text = this.closeOpen();
    const outputIndex = this.output.length;
    const item: OutputItem = { id: this.itemId('msg'), type: 'message', status: 'in_progress', content: [], role: 'assistant' };
    this.output.push(item);
    const message: OpenMessage = { kind: 'message', outputIndex, item, text: '', logprobs: [] };
    this.open = message;
    text += this.frame('response.output_item.added', { output_index: outputIndex, item: structuredClone(item) });
    text += this.frame('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
    return { message, text };
  }

  private openReasoning(fresh = false): { reasoning: OpenReasoning; text: string } {
    if (!fresh && this.open?.kind === 'reasoning') return { reasoning: this.open, text: '' };
    let text = this.closeOpen();
    const outputIndex = this.output.length;
    const item: OutputItem = { id: this.itemId('rs'), type: 'reasoning', summary: [] };
    this.output.push(item);
    const reasoning: OpenReasoning = { kind: 'reasoning', outputIndex, item };
    this.open = reasoning;
    text += this.frame('response.output_item.added', { output_index: outputIndex, item: structuredClone(item) });
    return { reasoning, text };
  }

  private closeOpen(): string {
    const open = this.open;
    if (!open) return '';
    this.open = undefined;
    let out = '';
    if (open.kind === 'message') {
      const part = { type: 'output_text', annotations: [], logprobs: open.logprobs, text: open.text };
      out += this.frame('response.output_text.done', { item_id: open.item.id, output_index: open.outputIndex, content_index: 0, text: open.text, logprobs: open.logprobs });
      out += this.frame('response.content_part.done', { item_id: open.item.id, output_index: open.outputIndex, content_index: 0, part });
      open.item.content = [part];
      open.item.status = this.finish === 'length' || this.finish === 'content_filter' ? 'incomplete' : 'completed';
    } else if (open.summary) {
      const part = { type: 'summary_text', text: open.summary.text };
      out += this.frame('response.reasoning_summary_text.done', { item_id: open.item.id, output_index: open.outputIndex, summary_index: open.summary.index, text: open.summary.text });
      out += this.frame('response.reasoning_summary_part.done', { item_id: open.item.id, output_index: open.outputIndex, summary_index: open.summary.index, part });
      open.item.summary = [...asArray(open.item.summary), part];
    }
    return out + this.frame('response.output_item.done', { output_index: open.outputIndex, item: structuredClone(open.item) });
  }

  private closeCall(index: number): string {
    const call = this.calls.get(index);
    if (!call) return '';
    this.calls.delete(index);
    call.item.status = this.finish === 'length' ? 'incomplete' : 'completed';
    const { item, outputIndex } = call;
    return (
      this.frame('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, name: item.name, arguments: item.arguments }) +
      this.frame('response.output_item.done', { output_index: outputIndex, item: structuredClone(item) })
    );
  }

  private closeAll(): string {
    let out = this.closeOpen();
    for (const index of [...this.calls.keys()]) out += this.closeCall(index);
    return out;
  }
}

function encodeResponsesAnswer(answer: CanonicalAnswer, request: CanonicalRequest): object {
  const writer = new ResponsesWriter(request);
  for (const event of answerEvents(answer)) writer.onEvent(event);
  writer.onEnd();
  return writer.response();
}

// ───────────────────────────── the codecs ─────────────────────────────

/** Responses at the front door (Codex, `openai.responses.create`) for providers that are not Responses-native. */
export const openaiResponsesDialect: DialectCodec = {
  dialect: 'openai-responses',
  decodeRequest: decodeResponsesRequest,
  encodeResponse: encodeResponsesAnswer,
  createStreamEncoder(request: CanonicalRequest): StreamEncoder {
    // Responses has no `n`: a Responses request is never fanned out.
    return new ResponsesWriter(request);
  },
  errorBody(error: GatewayError): object {
    return error.toBody(); // OpenAI's {"error":{message,type,param,code}}, as on the gateway's other OpenAI paths
  },
};

/** OpenAI's (and Azure OpenAI's) Responses API as the provider a Chat or Messages request is translated to. */
export const openaiResponsesProvider: ProviderCodec = {
  format: 'openai-responses',
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder(request: CanonicalRequest): StreamDecoder {
    return new ResponsesStreamDecoder(request);
  },
};

