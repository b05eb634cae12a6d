// Canonical events → a Responses client's stream, written as OpenAI does (`response.created` …
// `response.completed`, each event with its `sequence_number`), and the Response object they add up to.
import { randomUUID } from 'node:crypto';
import type { GatewayError } from '../../core/errors.js';
import {
  asArray,
  asString,
  type CanonicalEvent,
  type CanonicalRequest,
  type FinishReason,
  type Usage,
} from '../canonical.js';
import { functionCallName, namespaceIndex, responsesTools } from './tool-names.js';
import { responsesUsageJson } from './usage.js';

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
export class ResponsesWriter {
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
    return { ...this.base(status), error, incomplete_details: incomplete, output: this.output.map((item) => structuredClone(item)), usage: responsesUsageJson(this.usage) };
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
