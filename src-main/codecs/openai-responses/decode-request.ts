// A Responses client's body (Codex CLI, the `openai` SDK's `responses.create`) → canonical. Throws a 400
// naming the field for a malformed body.
import { invalidRequest } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import {
  asArray,
  asRecord,
  asString,
  type CanonicalRequest,
  type ImagePart,
  type ReasoningEffort,
  type ResponseFormat,
  type TextPart,
  type ToolChoice,
  type ToolDefinition,
  type ToolResultContent,
  type Turn,
} from '../canonical.js';
import { LOGPROBS_INCLUDE, imageSource, present } from './body-values.js';
import { flatToolName } from './tool-names.js';

const EFFORTS: Record<string, ReasoningEffort> = { minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' };

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
