// What the codec conformance suite (conformance.test.ts) needs to know about each wire format: what the format
// cannot carry (the only things left out of a comparison, each said in words), and, for a provider format
// with no answer encoder of its own (Gemini, Bedrock), a reference writer of its answers and streams written
// from the provider's documentation, so its decoders face the same properties.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { answerEvents, foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type ContentPart, type FinishReason, type Turn, type UpstreamEvent, type Usage, type WireFormat } from '../../../src-main/codecs/canonical.js';

// ---- Generators -------------------------------------------------------------------------------------------

/** Text as a model or a client writes it: any graphemes, non-blank, no whitespace at the ends (Messages trims a prefill). */
const text = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }).filter((s) => s.trim() === s && s !== '');
const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
const id = fc.stringMatching(/^[A-Za-z0-9]{4,12}$/);
const json = fc.dictionary(word, fc.oneof(fc.integer(), fc.boolean(), text, fc.constant(null)), { maxKeys: 3 });

/** Canonical form: what folding a stream of these events gives (adjacent texts merged and so on). */
export const canonicalAnswer = (answer: CanonicalAnswer): CanonicalAnswer => foldEvents(answerEvents(answer), { id: answer.id, model: answer.model });

const FINISH: FinishReason[] = ['stop', 'length', 'tool_calls', 'content_filter', 'stop_sequence', 'pause', 'error'];

const usage: fc.Arbitrary<Usage> = fc
  .record({ cacheRead: fc.option(fc.nat(50), { nil: undefined }), cacheWrite: fc.option(fc.nat(50), { nil: undefined }), uncached: fc.nat(500), visible: fc.nat(500), reasoning: fc.option(fc.nat(50), { nil: undefined }) })
  .map(({ cacheRead, cacheWrite, uncached, visible, reasoning }) => ({
    inputTokens: uncached + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: visible + (reasoning ?? 0),
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  }));

const answerPart = fc.oneof(
  text.map((t) => ({ type: 'text' as const, text: t })),
  fc.record({ text, signature: fc.option(id, { nil: undefined }) }).map(({ text: t, signature }) => ({ type: 'reasoning' as const, text: t, ...(signature ? { signature } : {}) })),
  id.map((data) => ({ type: 'reasoning' as const, text: '', encrypted: data })),
  fc.record({ id, name: word, args: json }).map(({ id: callId, name, args }) => ({ type: 'tool_call' as const, id: `call_${callId}`, name, arguments: JSON.stringify(args) })),
);

export const answers: fc.Arbitrary<CanonicalAnswer> = fc
  .record({ id, content: fc.array(answerPart, { maxLength: 5 }), finishReason: fc.constantFrom(...FINISH), stopSequence: text, usage: fc.option(usage, { nil: undefined }) })
  .map(({ id: answerId, content, finishReason, stopSequence, usage: u }) =>
    canonicalAnswer({ id: answerId, model: 'model-1', content, finishReason, ...(finishReason === 'stop_sequence' ? { stopSequence } : {}), ...(u ? { usage: u } : {}) }),
  );

/** A conversation every dialect can say: user first, tool results right after the calls they answer, a user turn last. */
const image = fc.oneof(
  fc.constant({ type: 'image' as const, source: { kind: 'url' as const, url: 'https://example.com/cat.png' } }),
  fc.constant({ type: 'image' as const, source: { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' } }),
);
const userTurn = fc.record({ t: text, img: fc.option(image, { nil: undefined }) }).map(({ t, img }): Turn => ({ role: 'user', parts: [{ type: 'text', text: t }, ...(img ? [img] : [])] }));
const callArb = fc.record({ id, name: fc.constantFrom('get_weather', 'search'), args: json });
const round = fc.record({
  reasoning: fc.option(fc.oneof(fc.record({ text, signature: id }), fc.record({ text, encrypted: id })), { nil: undefined }),
  say: fc.option(text, { nil: undefined }),
  calls: fc.uniqueArray(callArb, { maxLength: 2, selector: (c) => c.id }),
  results: fc.array(fc.oneof(text, fc.tuple(text, image)), { minLength: 2, maxLength: 2 }),
  isError: fc.boolean(),
  system: fc.option(text, { nil: undefined }),
  next: userTurn,
});

const turns = fc.record({ first: userTurn, rounds: fc.array(round, { maxLength: 2 }) }).map(({ first, rounds }) => {
  const out: Turn[] = [first];
  for (const r of rounds) {
    const parts: ContentPart[] = [];
    if (r.reasoning) parts.push({ type: 'reasoning', ...r.reasoning });
    if (r.say) parts.push({ type: 'text', text: r.say });
    const calls = r.calls.map((c) => ({ type: 'tool_call' as const, id: `call_${c.id}`, name: c.name, arguments: JSON.stringify(c.args) }));
    parts.push(...calls);
    if (!r.say && calls.length === 0) parts.push({ type: 'text', text: 'ok' });
    out.push({ role: 'assistant', parts });
    if (calls.length) {
      out.push({
        role: 'user',
        parts: calls.map((call, i) => {
          const result = r.results[i];
          return { type: 'tool_result', callId: call.id, name: call.name, content: typeof result === 'string' ? result : [{ type: 'text', text: result[0] }, result[1]], ...(r.isError && i === 0 ? { isError: true } : {}) };
        }),
      });
    }
    if (r.system) out.push({ role: 'system', parts: [{ type: 'text', text: r.system }] });
    out.push(r.next);
  }
  return out;
});

const tools = fc.uniqueArray(
  fc.record({ name: fc.constantFrom('get_weather', 'search', 'lookup'), description: fc.option(text, { nil: undefined }), strict: fc.option(fc.boolean(), { nil: undefined }) }),
  { maxLength: 3, selector: (t) => t.name },
);
const hundredths = (max: number) => fc.integer({ min: 0, max: max * 100 }).map((n) => n / 100);

export const requests: fc.Arbitrary<CanonicalRequest> = fc
  .record({
    system: fc.array(text, { maxLength: 2 }),
    turns,
    tools,
    toolChoice: fc.option(fc.constantFrom('auto', 'none', 'required', 'tool'), { nil: undefined }),
    parallelToolCalls: fc.option(fc.boolean(), { nil: undefined }),
    maxOutputTokens: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
    temperature: fc.option(hundredths(1), { nil: undefined }),
    topP: fc.option(hundredths(1), { nil: undefined }),
    topK: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    stop: fc.option(fc.array(text, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    seed: fc.option(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { nil: undefined }),
    presencePenalty: fc.option(hundredths(2).filter((n) => n !== 0), { nil: undefined }),
    frequencyPenalty: fc.option(hundredths(2).filter((n) => n !== 0), { nil: undefined }),
    reasoning: fc.option(
      fc.oneof(
        fc.constant({ enabled: false }),
        fc.constantFrom('minimal', 'low', 'medium', 'high', 'xhigh').map((effort) => ({ enabled: true, effort })),
        fc.integer({ min: 1024, max: 4000 }).map((budgetTokens) => ({ enabled: true, budgetTokens })),
      ),
      { nil: undefined },
    ),
    responseFormat: fc.option(
      fc.oneof(fc.constant({ type: 'text' as const }), fc.constant({ type: 'json_object' as const }), fc.record({ type: fc.constant('json_schema' as const), name: word, schema: fc.constant({ type: 'object' }), strict: fc.option(fc.boolean(), { nil: undefined }) })),
      { nil: undefined },
    ),
    logprobs: fc.option(fc.integer({ min: 0, max: 5 }).map((top) => ({ top })), { nil: undefined }),
    user: fc.option(word, { nil: undefined }),
    stream: fc.boolean(),
  })
  .map((r) => {
    const usedTools = new Set(r.turns.flatMap((t) => t.parts.flatMap((p) => (p.type === 'tool_call' ? [p.name] : []))));
    const defined = [...r.tools.map((t) => t.name), ...[...usedTools].filter((name) => !r.tools.some((t) => t.name === name))];
    const toolList = defined.map((name) => {
      const spec = r.tools.find((t) => t.name === name);
      return { name, ...(spec?.description ? { description: spec.description } : {}), parameters: { type: 'object', properties: { q: { type: 'string' } } }, ...(spec?.strict !== undefined ? { strict: spec.strict } : {}) };
    });
    const request: CanonicalRequest = {
      dialect: 'openai-chat',
      onUnsupported: 'refuse',
      model: 'model-1',
      system: r.system.map((t) => ({ type: 'text' as const, text: t })),
      turns: r.turns,
      stream: r.stream,
      extensions: {},
    };
    if (toolList.length) {
      request.tools = toolList;
      if (r.toolChoice) request.toolChoice = r.toolChoice === 'tool' ? { mode: 'tool', name: toolList[0].name } : { mode: r.toolChoice };
      if (r.parallelToolCalls !== undefined) request.parallelToolCalls = r.parallelToolCalls;
    }
    for (const key of ['maxOutputTokens', 'temperature', 'topP', 'topK', 'stop', 'seed', 'presencePenalty', 'frequencyPenalty', 'reasoning', 'responseFormat', 'logprobs', 'user'] as const) {
      const value = r[key];
      if (value !== undefined) (request as unknown as Record<string, unknown>)[key] = value;
    }
    return request;
  });

// ---- Normal forms for comparison ---------------------------------------------------------------------------

/** Optional usage figures of 0 and absent ones say the same (Messages writes its cache counts as 0). */
export function normalUsage(value: Usage | undefined): Usage | undefined {
  if (!value) return undefined;
  const out: Usage = { inputTokens: value.inputTokens, outputTokens: value.outputTokens };
  if (value.cacheReadTokens) out.cacheReadTokens = value.cacheReadTokens;
  if (value.cacheWriteTokens) out.cacheWriteTokens = value.cacheWriteTokens;
  if (value.reasoningTokens) out.reasoningTokens = value.reasoningTokens;
  return out;
}

/** Tool arguments compared as the JSON they are (a format that carries them as objects re-serialises them). */
export function normalAnswer(answer: CanonicalAnswer, { withId = true }: { withId?: boolean } = {}): unknown {
  return {
    ...(withId ? { id: answer.id } : {}),
    model: answer.model,
    content: answer.content.map((part) => (part.type === 'tool_call' ? { ...part, arguments: JSON.parse(part.arguments || '{}') as unknown } : part)),
    finishReason: answer.finishReason,
    ...(answer.stopSequence !== undefined ? { stopSequence: answer.stopSequence } : {}),
    // An answer with no usage and one with all zeros say the same: a Messages answer always carries usage, and a
    // Chat stream asked for include_usage always ends with a usage chunk.
    ...(answer.usage && (answer.usage.inputTokens || answer.usage.outputTokens || normalUsage(answer.usage)!.cacheReadTokens || normalUsage(answer.usage)!.cacheWriteTokens) ? { usage: normalUsage(answer.usage) } : {}),
    ...(answer.logprobs ? { logprobs: answer.logprobs } : {}),
  };
}

/** Rewrites an answer's events (what a format cannot carry, mapped or left out) and folds them again. */
function viaEvents(answer: CanonicalAnswer, map: (event: CanonicalEvent) => CanonicalEvent | undefined, then: (out: CanonicalAnswer) => CanonicalAnswer = (a) => a): CanonicalAnswer {
  const events = answerEvents(answer).flatMap((event) => map(event) ?? []);
  return then(foldEvents(events, { id: answer.id, model: answer.model }));
}

const hasCalls = (answer: CanonicalAnswer): boolean => answer.content.some((part) => part.type === 'tool_call');

// ---- Reference writers for provider formats without an answer encoder -------------------------------------

export interface ReferenceWriter {
  whole(answer: CanonicalAnswer): unknown;
  stream(answer: CanonicalAnswer): UpstreamEvent[];
}

const GEMINI_FINISH: Record<FinishReason, string> = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY', stop_sequence: 'STOP', pause: 'STOP', error: 'STOP' };

function geminiParts(answer: CanonicalAnswer): Record<string, unknown>[] {
  return answer.content.flatMap((part): Record<string, unknown>[] => {
    if (part.type === 'text') return [{ text: part.text }];
    if (part.type === 'reasoning') return part.text || part.signature ? [{ ...(part.text ? { text: part.text } : {}), thought: true, ...(part.signature ? { thoughtSignature: part.signature } : {}) }] : [];
    return [{ functionCall: { id: part.id, name: part.name, args: JSON.parse(part.arguments || '{}') as unknown } }];
  });
}

function geminiUsage(u: Usage | undefined): Record<string, unknown> {
  if (!u) return {};
  return {
    usageMetadata: {
      promptTokenCount: u.inputTokens,
      candidatesTokenCount: u.outputTokens - (u.reasoningTokens ?? 0),
      ...(u.reasoningTokens !== undefined ? { thoughtsTokenCount: u.reasoningTokens } : {}),
      ...(u.cacheReadTokens !== undefined ? { cachedContentTokenCount: u.cacheReadTokens } : {}),
      totalTokenCount: u.inputTokens + u.outputTokens,
    },
  };
}

/** Gemini's GenerateContentResponse, whole and as `streamGenerateContent?alt=sse` (a text split over two chunks). */
export const geminiWriter: ReferenceWriter = {
  whole(answer) {
    return { candidates: [{ content: { role: 'model', parts: geminiParts(answer) }, finishReason: GEMINI_FINISH[answer.finishReason ?? 'stop'], index: 0 }], ...geminiUsage(answer.usage), modelVersion: answer.model, responseId: answer.id };
  },
  stream(answer) {
    const chunks = geminiParts(answer).flatMap((part) => {
      const t = part.text as string | undefined;
      if (!t || [...t].length < 2 || part.thoughtSignature) return [[part]];
      const cut = [...t].slice(0, 1).join('');
      return [[{ ...part, text: cut }], [{ ...part, text: t.slice(cut.length) }]];
    });
    const frames = chunks.map((parts) => ({ candidates: [{ content: { role: 'model', parts }, index: 0 }], modelVersion: answer.model, responseId: answer.id }));
    frames.push({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: GEMINI_FINISH[answer.finishReason ?? 'stop'], index: 0 } as never], ...geminiUsage(answer.usage), modelVersion: answer.model, responseId: answer.id });
    return frames.map((frame) => ({ kind: 'sse', data: JSON.stringify(frame) }));
  },
};

const CONVERSE_STOP: Record<FinishReason, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'content_filtered', stop_sequence: 'stop_sequence', pause: 'end_turn', error: 'end_turn' };

function converseUsage(u: Usage): Record<string, number> {
  const cacheRead = u.cacheReadTokens ?? 0;
  const cacheWrite = u.cacheWriteTokens ?? 0;
  return {
    inputTokens: u.inputTokens - cacheRead - cacheWrite,
    outputTokens: u.outputTokens,
    totalTokens: u.inputTokens + u.outputTokens,
    ...(u.cacheReadTokens !== undefined ? { cacheReadInputTokens: cacheRead } : {}),
    ...(u.cacheWriteTokens !== undefined ? { cacheWriteInputTokens: cacheWrite } : {}),
  };
}

const frame = (eventType: string, body: object): UpstreamEvent => ({
  kind: 'frame',
  headers: { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
  payload: Buffer.from(JSON.stringify(body)),
});

/** Bedrock's Converse answer, whole and as ConverseStream frames (tool input in two pieces). */
export const converseWriter: ReferenceWriter = {
  whole(answer) {
    const content = answer.content.map((part) => {
      if (part.type === 'text') return { text: part.text };
      if (part.type === 'reasoning') return { reasoningContent: part.encrypted !== undefined ? { redactedContent: part.encrypted } : { reasoningText: { text: part.text, ...(part.signature ? { signature: part.signature } : {}) } } };
      return { toolUse: { toolUseId: part.id, name: part.name, input: JSON.parse(part.arguments || '{}') as unknown } };
    });
    return { output: { message: { role: 'assistant', content } }, stopReason: CONVERSE_STOP[answer.finishReason ?? 'stop'], ...(answer.usage ? { usage: converseUsage(answer.usage) } : {}), metrics: { latencyMs: 1 } };
  },
  stream(answer) {
    const out: UpstreamEvent[] = [frame('messageStart', { role: 'assistant' })];
    answer.content.forEach((part, contentBlockIndex) => {
      if (part.type === 'text') out.push(frame('contentBlockDelta', { contentBlockIndex, delta: { text: part.text } }));
      else if (part.type === 'reasoning') {
        if (part.encrypted !== undefined) out.push(frame('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { redactedContent: part.encrypted } } }));
        else {
          if (part.text) out.push(frame('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { text: part.text } } }));
          if (part.signature) out.push(frame('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { signature: part.signature } } }));
        }
      } else {
        out.push(frame('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: part.id, name: part.name } } }));
        const input = JSON.stringify(JSON.parse(part.arguments || '{}'));
        const cut = Math.floor(input.length / 2);
        out.push(frame('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: input.slice(0, cut) } } }));
        out.push(frame('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: input.slice(cut) } } }));
      }
      out.push(frame('contentBlockStop', { contentBlockIndex }));
    });
    out.push(frame('messageStop', { stopReason: CONVERSE_STOP[answer.finishReason ?? 'stop'] }));
    out.push(frame('metadata', { ...(answer.usage ? { usage: converseUsage(answer.usage) } : {}), metrics: { latencyMs: 1 } }));
    return out;
  },
};

// ---- Recorded provider streams, with the whole answer each adds up to ------------------------------------------

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const sseData = (file: string): { kind: 'sse'; data: string }[] =>
  fixture(file)
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => ({ kind: 'sse' as const, data: block.split('\n').find((line) => line.startsWith('data: '))!.slice('data: '.length) }));

const responsesStream = sseData('openai-responses-stream.sse');
const geminiStream = sseData('gemini-stream.sse');
const converseStream = (JSON.parse(fixture('bedrock-converse-stream.json')) as { event: string; body: object }[]).map(({ event, body }) => frame(event, body));

// ---- Per format: what it cannot carry ------------------------------------------------------------------------

export interface AnswerProfile {
  /** What the format loses of an answer, in words (shown in the test names). */
  loses: string[];
  /** The canonical answer as it reads back after a trip through the format. */
  project(answer: CanonicalAnswer): CanonicalAnswer;
  /** Answers the format has no way to say at all (skipped from generation, each listed in `loses`). */
  excludes?(answer: CanonicalAnswer): boolean;
  /** An order the format does not keep, put in the one order it has (applied to both sides of a comparison). */
  normal?(answer: CanonicalAnswer): CanonicalAnswer;
  /** Ids the format does not carry (the decoder makes one up). */
  madeUpId?: boolean;
  /** For a provider format with no answer encoder: the suite's reference writer. */
  reference?: ReferenceWriter;
}

export interface RequestProfile {
  loses: string[];
  /** What of a request the format can hold (the rest is left out before encoding, so nothing is dropped). */
  holds(request: CanonicalRequest): CanonicalRequest;
  /** The request as the decoder reads it back (defaults the encoder writes out made explicit). */
  readsBack(request: CanonicalRequest): CanonicalRequest;
  /** What the dialect's decoder takes when the body alone is not all of it (Gemini's model and stream switch are in its path). */
  dialectInput?(body: Record<string, unknown>, request: CanonicalRequest): unknown;
}

export interface FormatProfile {
  answer?: AnswerProfile;
  request?: RequestProfile;
  /** Recorded provider streams with the whole answer they add up to. */
  recorded?: { name: string; stream: UpstreamEvent[]; whole: unknown; /** The wire has no call ids: the decoder makes them up. */ madeUpCallIds?: boolean }[];
  /** Why a half is missing, when it is. */
  why?: string;
}

const mapFinish = (answer: CanonicalAnswer, map: Partial<Record<FinishReason, FinishReason>>): CanonicalAnswer => {
  const reason = answer.finishReason && (map[answer.finishReason] ?? answer.finishReason);
  const out: CanonicalAnswer = { ...answer, finishReason: reason };
  if (reason !== 'stop_sequence') delete out.stopSequence;
  return out;
};

const dropUsage = (answer: CanonicalAnswer, keys: (keyof Usage)[]): CanonicalAnswer => {
  if (!answer.usage) return answer;
  const u = { ...answer.usage };
  for (const key of keys) delete u[key];
  return { ...answer, usage: u };
};

/** Text joined into one part ahead of the tool calls (Chat's message has one `content` and a `tool_calls` list). */
const textFirst = (answer: CanonicalAnswer): CanonicalAnswer => {
  const t = answer.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  return { ...answer, content: [...(t ? [{ type: 'text' as const, text: t }] : []), ...answer.content.filter((part) => part.type === 'tool_call')] };
};

const withoutKeys = <T extends object>(value: T, keys: string[]): T => {
  const out = { ...value } as Record<string, unknown>;
  for (const key of keys) delete out[key];
  return out as T;
};

const mapTurns = (request: CanonicalRequest, map: (part: ContentPart, turn: Turn) => ContentPart | undefined): Turn[] =>
  request.turns.map((turn) => ({ ...turn, parts: turn.parts.flatMap((part) => map(part, turn) ?? []) })).filter((turn) => turn.parts.length > 0);

/**
 * Keyed by every wire format: a format added to `WireFormat` without a profile here fails the type check,
 * and the suite then runs every property its registry halves allow.
 */
export const PROFILES: Record<WireFormat, FormatProfile> = {
  'openai-chat': {
    answer: {
      loses: ['reasoning (the Chat answer encoder writes none)', 'text after a tool call (one content before tool_calls)', 'stop_sequence/pause/error finish (→ stop)', 'stopSequence', 'cacheWriteTokens'],
      normal: textFirst,
      project: (a) => dropUsage(mapFinish(textFirst(viaEvents(a, (e) => (e.type.startsWith('reasoning') ? undefined : e))), { stop_sequence: 'stop', pause: 'stop', error: 'stop' }), ['cacheWriteTokens']),
    },
    request: {
      loses: ['several system texts (joined in one)', 'reasoning parts in turns', 'isError of tool results', 'images in tool results', 'a reasoning budget (effort only)', "response_format 'text' (the default)", 'parallel_tool_calls: true (the default)'],
      holds: (r) => {
        const out: CanonicalRequest = {
          ...r,
          system: r.system.length ? [{ type: 'text', text: r.system.map((p) => p.text).join('\n\n') }] : [],
          turns: mapTurns(r, (p) => (p.type === 'reasoning' ? undefined : p.type === 'tool_result' ? { ...withoutKeys(p, ['isError']), content: typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('') } : p)),
        };
        if (r.reasoning?.budgetTokens !== undefined) delete out.reasoning;
        if (r.responseFormat?.type === 'text') delete out.responseFormat;
        if (r.parallelToolCalls === true) delete out.parallelToolCalls;
        return out;
      },
      // Streamed requests always ask for the usage chunk (the gateway logs usage).
      readsBack: (r) => (r.stream ? { ...r, includeUsage: true } : r),
    },
  },
  'openai-responses': {
    answer: {
      loses: ["Anthropic's thinking signatures", 'stop_sequence/pause finish (→ stop, or tool_calls when calls were made)', 'stopSequence', "an 'error' finish (a failed response: the decoder throws, as it should)"],
      excludes: (a) => a.finishReason === 'error',
      project: (a) => {
        const out = viaEvents(a, (e) => (e.type === 'reasoning_signature' ? undefined : e));
        const reason = out.finishReason === 'length' || out.finishReason === 'content_filter' ? out.finishReason : hasCalls(out) ? 'tool_calls' : 'stop';
        return mapFinish({ ...out, id: out.id.startsWith('resp_') ? out.id : `resp_${out.id}` }, { [out.finishReason ?? 'stop']: reason });
      },
    },
    recorded: [{ name: 'openai-responses-stream.sse', stream: responsesStream, whole: (JSON.parse(responsesStream.at(-1)!.data) as { response: unknown }).response }],
    request: {
      loses: ['several system texts (joined in instructions)', 'reasoning without encrypted content', 'isError of tool results', 'topK, stop, seed, penalties (no such fields)', 'a reasoning budget (effort only)', 'the tool result name is read back from the call'],
      holds: (r) => {
        const out = withoutKeys(r, ['topK', 'stop', 'seed', 'presencePenalty', 'frequencyPenalty']);
        out.dialect = 'openai-responses';
        out.onUnsupported = 'drop';
        out.system = r.system.length ? [{ type: 'text', text: r.system.map((p) => p.text).join('\n\n') }] : [];
        out.turns = mapTurns(r, (p) => (p.type === 'reasoning' ? (p.encrypted ? p : undefined) : p.type === 'tool_result' ? withoutKeys(p, ['isError']) : p));
        if (r.reasoning?.budgetTokens !== undefined) delete out.reasoning;
        return out;
      },
      // Tools are sent non-strict unless they say; `store: false` is always sent (Gatehouse is stateless) and reads back as the client's own field.
      readsBack: (r) => ({ ...r, extensions: { ...r.extensions, store: false }, ...(r.tools ? { tools: r.tools.map((t) => ({ ...t, strict: t.strict ?? false })) } : {}) }),
    },
  },
  'anthropic-messages': {
    answer: {
      loses: ["an 'error' finish (→ end_turn)", 'stopSequence unless the finish is stop_sequence', 'reasoningTokens', "ids take Messages' msg_ prefix"],
      project: (a) => dropUsage(mapFinish({ ...a, id: a.id.startsWith('msg_') ? a.id : `msg_${a.id}` }, { error: 'stop' }), ['reasoningTokens']),
    },
    request: {
      loses: ['seed, penalties, responseFormat, logprobs (no such fields)', 'turn boundaries between consecutive user turns (merged)', 'unsigned reasoning text', 'the tool result name (Messages results name only the call id)', 'temperature/topK/topP<0.95 together with thinking', 'parallel_tool_calls: true (the default), and with tool_choice none', "effort 'minimal' (→ low)"],
      holds: (r) => {
        const out = withoutKeys(r, ['seed', 'presencePenalty', 'frequencyPenalty', 'responseFormat', 'logprobs']);
        out.dialect = 'anthropic-messages';
        out.onUnsupported = 'drop';
        out.maxOutputTokens = Math.max(r.maxOutputTokens ?? 4096, 5000);
        out.turns = mapTurns(r, (p) => (p.type === 'reasoning' ? (p.signature ? { type: 'reasoning', text: p.text, signature: p.signature } : { type: 'reasoning', text: '', encrypted: p.encrypted! }) : p.type === 'tool_result' ? withoutKeys(p, ['name']) : p));
        if (r.reasoning?.enabled) {
          // Messages thinks with a budget (or adaptively); a forced tool choice and sampling changes don't go with it.
          if (r.toolChoice?.mode === 'required' || r.toolChoice?.mode === 'tool') delete out.toolChoice;
          delete out.temperature;
          delete out.topK;
          if (r.topP !== undefined && r.topP < 0.95) delete out.topP;
        }
        return out;
      },
      // Messages wants turns to alternate: a user turn after a tool-result turn joins it. Its parallel flag lives
      // in tool_choice: parallel false alone reads back as tool_choice auto, and true (the default) is not written.
      readsBack: (r) => ({ ...withoutKeys(r, r.parallelToolCalls === true || (r.parallelToolCalls === false && r.toolChoice?.mode === 'none') ? ['parallelToolCalls'] : []), ...(r.parallelToolCalls === false && !r.toolChoice ? { toolChoice: { mode: 'auto' as const } } : {}), ...(r.reasoning?.effort === 'minimal' ? { reasoning: { ...r.reasoning, effort: 'low' as const } } : {}), turns: r.turns.reduce<Turn[]>((out, turn) => {
        const last = out.at(-1);
        if (last && last.role === turn.role) out[out.length - 1] = { ...last, parts: [...last.parts, ...turn.parts] };
        else out.push(turn);
        return out;
      }, []) }),
    },
  },
  'openai-completions': { why: 'a client dialect only: no provider codec reads or writes it upstream' },
  gemini: {
    request: {
      loses: [
        'call ids (the encoder sends none: the decoder makes them and matches results by name and order)',
        'reasoning text (a thought signature travels on the part after it), encrypted reasoning',
        'images given by URL, images in tool results',
        'turn boundaries between consecutive user turns (merged), system turns (moved to systemInstruction)',
        'an effort level (a budget on models before Gemini 3)',
        'strict tools, user, parallel_tool_calls, the json_schema name and strict flag',
      ],
      holds: (r) => {
        const out = withoutKeys(r, ['user', 'parallelToolCalls']);
        out.dialect = 'gemini';
        out.onUnsupported = 'drop';
        if (out.tools) out.tools = out.tools.map((tool) => withoutKeys(tool, ['strict']));
        out.turns = mapTurns(r, (p) => {
          if (p.type === 'reasoning') return p.signature ? { type: 'reasoning', text: '', signature: p.signature } : undefined;
          if (p.type === 'image') return p.source.kind === 'url' ? undefined : p;
          if (p.type === 'tool_result') return { ...p, content: typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('') };
          return p;
        });
        if (r.responseFormat?.type === 'text') delete out.responseFormat;
        return out;
      },
      readsBack: (r) => {
        const out: CanonicalRequest = { ...r };
        const system = r.turns.filter((turn) => turn.role === 'system').flatMap((turn) => turn.parts.filter((p): p is Extract<ContentPart, { type: 'text' }> => p.type === 'text'));
        out.system = [...r.system, ...system];
        // The encoder sends no ids: calls are numbered in order, each result answers the first open call of its name.
        let made = 0;
        const ids = new Map<string, string>();
        const open = new Map<string, string[]>();
        const turns = r.turns
          .filter((turn) => turn.role !== 'system')
          .map((turn) => ({
            ...turn,
            parts: turn.parts.map((p): ContentPart => {
              if (p.type === 'tool_call') {
                const id = `call_gemini_${++made}`;
                ids.set(p.id, id);
                open.set(p.name, [...(open.get(p.name) ?? []), id]);
                return { ...p, id };
              }
              if (p.type === 'tool_result') return { ...p, callId: open.get(p.name!)!.shift()! };
              return p;
            }),
          }));
        out.turns = turns.reduce<Turn[]>((merged, turn) => {
          const last = merged.at(-1);
          if (last && last.role === turn.role) merged[merged.length - 1] = { ...last, parts: [...last.parts, ...turn.parts] };
          else merged.push(turn);
          return merged;
        }, []);
        const budgets = { minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };
        if (r.reasoning?.enabled && r.reasoning.effort) out.reasoning = { enabled: true, budgetTokens: budgets[r.reasoning.effort] };
        if (r.responseFormat?.type === 'json_schema') out.responseFormat = { type: 'json_schema', name: 'response', schema: r.responseFormat.schema };
        return out;
      },
      dialectInput: (body, request) => ({ model: request.model, stream: request.stream, body }),
    },
    recorded: [
      {
        name: 'gemini-stream.sse',
        stream: geminiStream,
        madeUpCallIds: true,
        whole: {
          candidates: [{ content: { role: 'model', parts: [{ text: 'The user wants the weather.', thought: true }, { text: 'Let me check' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 10, thoughtsTokenCount: 4, cachedContentTokenCount: 8, totalTokenCount: 26 },
          modelVersion: 'gemini-2.5-flash',
          responseId: 'resp-1',
        },
      },
    ],
    answer: {
      loses: ['encrypted reasoning', "finish other than length/content_filter (→ STOP: stop, or tool_calls when calls were made)", 'stopSequence', 'cacheWriteTokens'],
      reference: geminiWriter,
      project: (a) => {
        const out = dropUsage(viaEvents(a, (e) => (e.type === 'reasoning_encrypted' ? undefined : e)), ['cacheWriteTokens']);
        const reason = out.finishReason === 'length' || out.finishReason === 'content_filter' ? out.finishReason : hasCalls(out) ? 'tool_calls' : 'stop';
        return mapFinish(out, { [out.finishReason ?? 'stop']: reason });
      },
    },
  },
  'bedrock-converse': {
    why: 'a provider format only: no dialect decodes a Converse request',
    recorded: [
      {
        name: 'bedrock-converse-stream.json',
        stream: converseStream,
        whole: {
          output: { message: { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'The user wants the weather.', signature: 'EqQBCkYIARgC' } } }, { text: 'Let me check.' }, { toolUse: { toolUseId: 'tooluse_abc123', name: 'get_weather', input: { city: 'Paris' } } }] } },
          stopReason: 'tool_use',
          usage: { inputTokens: 7, outputTokens: 5, totalTokens: 15, cacheReadInputTokens: 2, cacheWriteInputTokens: 1 },
        },
      },
    ],
    answer: {
      loses: ['the answer id (Converse has none)', 'the model (not in the answer)', 'pause/error finish (→ end_turn)', 'stopSequence', 'reasoningTokens'],
      madeUpId: true,
      reference: converseWriter,
      project: (a) => dropUsage(withoutKeys(mapFinish(a, { pause: 'stop', error: 'stop' }), ['stopSequence']), ['reasoningTokens']),
    },
  },
};
