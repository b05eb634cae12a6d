// A canonical request → a stateless (`store: false`) Responses body for OpenAI or Azure OpenAI.
import { invalidRequest } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import {
  asArray,
  cannotHonour,
  fieldName,
  joinText,
  type CanonicalRequest,
  type EncodedRequest,
  type EncodeTarget,
  type ImagePart,
  type ReasoningEffort,
  type TextPart,
  type ToolResultContent,
} from '../canonical.js';
import { LOGPROBS_INCLUDE, imageUrl } from './body-values.js';
import { functionCallName, namespaceIndex, responsesTools } from './tool-names.js';

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

export function encodeResponsesRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
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
