// The Playground: how to authenticate, what to send, and the run in progress or last finished.
// The draft (mode, model, prompt, parameters, provider and host) survives a reload; keys and
// tokens typed here stay in memory only and are never written to storage.
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { ApiError, describeError, isAbortError } from '../api/api-error';
import {
  buildGatewayHeaders,
  callGateway,
  maskHeaders,
  mergeUsage,
  type GatewayAuth,
  type CompletionPiece,
  type GatewayEndpoint,
  type TokenLogprob,
  type Usage,
} from '../api/gateway-client';
import type { RequestDraft } from '../playground/draft-from-log';
import { useKeyModelsStore } from './key-models-store';
import { requireAdminClient } from './session-store';
import { ANTHROPIC_VERSION, readMessagesPiece } from '../playground/messages';
import { readResponsesPiece } from '../playground/responses';
import { geminiPath, readGeminiPiece } from '../playground/gemini';
import { buildGatewayOptionHeaders, EMPTY_GATEWAY_OPTIONS, type GatewayOptionValues } from '../playground/gateway-options';
import { stringifyJson } from '../playground/json-text';
import { snippetAuthOf, type SnippetAuth } from '../playground/code-snippets';
import {
  buildParameterFields,
  INITIAL_PARAMETERS,
  parseJsonPrompt,
  type ParameterValues,
  type PlaygroundMode,
  type RequestBody,
} from '../playground/parameters';

/** A stored key picked by name (run by the admin API), a pasted gh-vk- key, or a provider with its token. */
export type AuthKind = 'key-by-name' | 'virtual-key' | 'provider';
/** One run at a time, or the same prompt to two keys/models side by side. */
export type PlaygroundView = 'single' | 'compare';
export type ModelOptionsStatus = 'idle' | 'loading' | 'ready' | 'error';
export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  id: number;
  role: ChatRole;
  content: string;
  /** A reply cut short by Stop: kept as far as it came, and said so. */
  stopped?: boolean;
}

/**
 * The request a run sent, as the code tabs write it out: taken when the run starts, so a reply joining
 * the transcript afterwards does not change what they show.
 */
export interface RanRequest {
  endpoint: GatewayEndpoint;
  auth: SnippetAuth;
  body: RequestBody;
  extraHeaders: Record<string, string>;
  model: string;
  stream: boolean;
}

export type RunPhase = 'idle' | 'running' | 'done' | 'error' | 'stopped';

export interface RunStats {
  status: number | null;
  firstTokenMs: number | null;
  latencyMs: number | null;
  usage: Usage | null;
  finishReasons: Array<string | null>;
  traceId: string | null;
  eventCount: number;
}

export interface RawExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; headers: Record<string, string>; body: string };
}

export interface RunError {
  message: string;
  param: string | null;
  status: number | null;
}

export interface LocalServerPreset {
  label: string;
  provider: string;
  baseUrl: string;
}

export const LOCAL_SERVER_PRESETS: LocalServerPreset[] = [
  { label: 'Ollama', provider: 'ollama', baseUrl: 'http://localhost:11434/v1' },
  { label: 'llama.cpp', provider: 'openai-compatible', baseUrl: 'http://localhost:8080/v1' },
  { label: 'vLLM', provider: 'openai-compatible', baseUrl: 'http://localhost:8000/v1' },
  { label: 'LM Studio', provider: 'openai-compatible', baseUrl: 'http://localhost:1234/v1' },
];

interface PlaygroundState {
  mode: PlaygroundMode;
  authKind: AuthKind;
  /** The virtual key picked by name (its id: the key itself never reaches the page). */
  keyId: string;
  virtualKey: string;
  provider: string;
  providerToken: string;
  customHost: string;
  gatewayApiKey: string;
  model: string;
  prompt: string;
  /** Completion mode: send the prompt as JSON (arrays of strings or tokens) instead of text. */
  promptIsJson: boolean;
  messages: ChatMessage[];
  parameters: ParameterValues;
  gatewayOptions: GatewayOptionValues;
  view: PlaygroundView;

  /** The models the chosen key's provider lists, offered by the Model field (which still takes any text). */
  modelOptions: string[];
  modelOptionsStatus: ModelOptionsStatus;
  modelOptionsError: string | null;

  phase: RunPhase;
  outputs: string[];
  /** Per choice, the tokens with their log probabilities (only when logprobs were requested). */
  tokenLogprobs: TokenLogprob[][];
  stats: RunStats | null;
  error: RunError | null;
  raw: RawExchange | null;
  /** What the last run sent (null before a run, and after a new chat or a loaded draft). */
  lastRun: RanRequest | null;
  /** The message id of the last run's reply: streaming into the transcript, then a turn of it. */
  replyId: number | null;

  /** Per virtual key, the model last run with it: picked again when that key is chosen. */
  modelByKey: Record<string, string>;
  /** The key changed and its model is still to be picked, once its model list is in. */
  modelPickPending: boolean;
  /** Says which model a key change picked and why. */
  modelNotice: string | null;

  update(patch: Partial<Pick<PlaygroundState, 'mode' | 'authKind' | 'keyId' | 'view' | 'virtualKey' | 'provider' | 'providerToken' | 'customHost' | 'gatewayApiKey' | 'model' | 'prompt' | 'promptIsJson'>>): void;
  updateParameters(patch: Partial<ParameterValues>): void;
  updateGatewayOptions(patch: Partial<GatewayOptionValues>): void;
  setNumber(name: keyof ParameterValues['numbers'], raw: string): void;
  addMessage(role: ChatRole): void;
  updateMessage(id: number, patch: Partial<Omit<ChatMessage, 'id'>>): void;
  removeMessage(id: number): void;
  /** Starts the conversation over: the system messages stay, the turns and the last run go. */
  newConversation(): void;
  /**
   * Sends the conversation again from a turn: from a user message (after editing it) the turns after it
   * go; from an assistant reply (regenerate) that reply and the turns after it go.
   */
  resendFrom(id: number): Promise<void>;
  /**
   * The key changed: picks the model it was last run with when the key still serves it, else the first
   * it lists (`offered`), and says which. `keyName` names the key in that note.
   */
  settleModelPick(offered: readonly string[], keyName: string): void;
  /**
   * Replaces what to send with a request taken from the log or a saved prompt; with `keyId` (a virtual
   * key that still exists) that key is picked too, else how to authenticate is left as it is.
   */
  loadDraft(draft: RequestDraft, keyId?: string | null): void;
  /**
   * The key or provider changed: any list on its way is for the old one, and the field says at once
   * that a new list is coming (when there is enough to ask with); loadModelOptions then fetches it.
   */
  modelSourceChanged(): void;
  /** Fills modelOptions from the models the current key or provider lists. */
  loadModelOptions(): Promise<void>;
  /** Runs the draft; with `transcriptOnly` the conversation as it stands, leaving the composer alone. */
  run(options?: { transcriptOnly?: boolean }): Promise<void>;
  stop(): void;
}

let nextMessageId = 1;
let activeRun: AbortController | null = null;

const ENDPOINTS: Record<PlaygroundMode, GatewayEndpoint> = {
  completion: '/v1/completions',
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
  gemini: '/v1beta/models',
};

export function endpointFor(mode: PlaygroundMode): GatewayEndpoint {
  return ENDPOINTS[mode];
}

/** The path a run is sent to: the mode's endpoint, or for Gemini the model's own path (streamed or not). */
export function runPathFor(mode: PlaygroundMode, model: string, stream: boolean): GatewayEndpoint {
  return mode === 'gemini' ? (geminiPath(model, stream) as GatewayEndpoint) : ENDPOINTS[mode];
}

/** Whether a run streams: Gemini says so in its path (the Stream switch), the others in the body. */
export function runStreams(mode: PlaygroundMode, body: RequestBody, parameters: ParameterValues): boolean {
  return mode === 'gemini' ? parameters.stream : body.stream === true;
}

/** How a mode's answers are read: OpenAI's Chat/Completions shapes by default, else the mode's own. */
export function pieceReaderFor(mode: PlaygroundMode): ((value: unknown) => CompletionPiece) | undefined {
  return mode === 'messages' ? readMessagesPiece : mode === 'responses' ? readResponsesPiece : mode === 'gemini' ? readGeminiPiece : undefined;
}

/**
 * The headers of a run. Messages mode sends what Claude Code sends: `anthropic-version`, and a virtual
 * key as `x-api-key` (ANTHROPIC_API_KEY's header). Responses mode sends a virtual key the way Codex and
 * the openai SDK do, as `Authorization: Bearer`. With a gateway key and provider headers every mode sends
 * those as Completion and Chat do.
 */
export function requestHeadersFor(mode: PlaygroundMode, auth: GatewayAuth): Record<string, string> {
  // A key picked by name is added by the admin API, on the server.
  const headers = buildGatewayHeaders(auth);
  if (mode === 'gemini' && auth.kind === 'virtual-key') {
    // What GEMINI_API_KEY sends.
    delete headers['x-gateway-api-key'];
    headers['x-goog-api-key'] = auth.virtualKey.trim();
  }
  if (mode !== 'messages' && mode !== 'responses') return headers;
  if (auth.kind === 'virtual-key') {
    delete headers['x-gateway-api-key'];
    if (mode === 'messages') headers['x-api-key'] = auth.virtualKey.trim();
    else headers.authorization = `Bearer ${auth.virtualKey.trim()}`;
  }
  if (mode === 'messages') headers['anthropic-version'] = ANTHROPIC_VERSION;
  return headers;
}

export function authOf(state: Pick<PlaygroundState, 'authKind' | 'keyId' | 'virtualKey' | 'provider' | 'providerToken' | 'customHost' | 'gatewayApiKey'>): GatewayAuth {
  if (state.authKind === 'key-by-name') return { kind: 'key-by-name', keyId: state.keyId };
  return state.authKind === 'virtual-key'
    ? { kind: 'virtual-key', virtualKey: state.virtualKey }
    : { kind: 'provider', provider: state.provider, providerToken: state.providerToken, customHost: state.customHost, gatewayApiKey: state.gatewayApiKey };
}

/** The request body the Run button would send now, with the errors that block it. */
export function draftRequest(state: Pick<PlaygroundState, 'mode' | 'model' | 'prompt' | 'promptIsJson' | 'messages' | 'parameters'>): { body: RequestBody; errors: Partial<Record<string, string>> } {
  const { fields, errors } = buildParameterFields(state.mode, state.parameters);
  const body: RequestBody = { model: state.model.trim() };
  if (state.mode === 'chat') {
    const history = state.messages.filter((message) => message.content.trim()).map((message) => ({ role: message.role, content: message.content }));
    body.messages = state.prompt ? [...history, { role: 'user', content: state.prompt }] : history;
  } else if (state.mode === 'messages' || state.mode === 'responses') {
    // Both take the system prompt beside the conversation (Messages' `system`, Responses' `instructions`);
    // Responses gets the whole conversation as its `input` each time, since nothing is stored upstream.
    const written = state.messages.filter((message) => message.content.trim());
    const system = written.filter((message) => message.role === 'system').map((message) => message.content).join('\n\n');
    const turns = written.filter((message) => message.role !== 'system').map((message) => ({ role: message.role, content: message.content }));
    const conversation = state.prompt ? [...turns, { role: 'user', content: state.prompt }] : turns;
    if (system) body[state.mode === 'messages' ? 'system' : 'instructions'] = system;
    body[state.mode === 'messages' ? 'messages' : 'input'] = conversation;
    if (!conversation.length) errors.prompt = 'Write a prompt (or a user message)';
  } else if (state.mode === 'gemini') {
    // The model is in the path, not the body; the system prompt is systemInstruction, turns are contents.
    const written = state.messages.filter((message) => message.content.trim());
    const system = written.filter((message) => message.role === 'system').map((message) => message.content).join('\n\n');
    const turns = written.filter((message) => message.role !== 'system').map((message) => ({ role: message.role === 'assistant' ? 'model' : 'user', parts: [{ text: message.content }] }));
    const contents = state.prompt ? [...turns, { role: 'user', parts: [{ text: state.prompt }] }] : turns;
    delete body.model;
    body.contents = contents;
    if (system) body.systemInstruction = { parts: [{ text: system }] };
    if (!contents.length) errors.prompt = 'Write a prompt (or a user message)';
  } else if (state.promptIsJson) {
    const parsed = parseJsonPrompt(state.prompt);
    if (parsed.error) errors.prompt = parsed.error;
    else if (parsed.value !== undefined) body.prompt = parsed.value;
  } else {
    body.prompt = state.prompt;
  }
  if (!state.model.trim()) errors.model = 'Enter a model name';
  return { body: { ...body, ...fields }, errors };
}

/** Where a run goes: the gateway path, or for a key picked by name the admin API's Playground path. */
export function runTarget(auth: GatewayAuth, endpoint: GatewayEndpoint): { url: string; headers: Record<string, string> } {
  return auth.kind === 'key-by-name' ? requireAdminClient().playgroundTarget(auth.keyId, endpoint) : { url: endpoint, headers: {} };
}

export function authErrors(auth: GatewayAuth): Partial<Record<string, string>> {
  if (auth.kind === 'key-by-name') return auth.keyId ? {} : { keyId: 'Choose a virtual key (make one on the Keys page)' };
  if (auth.kind === 'virtual-key') return auth.virtualKey.trim() ? {} : { virtualKey: 'Paste a virtual key (gh-vk-…)' };
  const errors: Partial<Record<string, string>> = {};
  if (!auth.gatewayApiKey.trim()) errors.gatewayApiKey = 'Paste a gateway API key';
  return errors;
}

function inMemoryStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  const values = new Map<string, string>();
  return {
    getItem: (name) => values.get(name) ?? null,
    setItem: (name, value) => void values.set(name, value),
    removeItem: (name) => void values.delete(name),
  };
}

/** What is kept in localStorage: the draft, never a key, a token or a run. */
type PersistedDraft = Pick<PlaygroundState, 'mode' | 'authKind' | 'keyId' | 'view' | 'provider' | 'customHost' | 'model' | 'prompt' | 'promptIsJson' | 'messages' | 'parameters' | 'gatewayOptions' | 'modelByKey'>;

/** The state of no run at all: before the first one, and after a draft is loaded or the conversation started over. */
const NO_RUN: Pick<PlaygroundState, 'phase' | 'outputs' | 'tokenLogprobs' | 'stats' | 'error' | 'raw' | 'lastRun' | 'replyId'> = {
  phase: 'idle',
  outputs: [],
  tokenLogprobs: [],
  stats: null,
  error: null,
  raw: null,
  lastRun: null,
  replyId: null,
};

/** Whether there is enough to ask for a model list with: a key, or a provider with a gateway API key. */
function canListModels(auth: GatewayAuth): boolean {
  if (auth.kind === 'key-by-name') return Boolean(auth.keyId);
  if (auth.kind === 'virtual-key') return Boolean(auth.virtualKey.trim());
  return Boolean(auth.provider && auth.gatewayApiKey.trim());
}

/** Answers to an older model list request are dropped: only the newest choice of key counts. */
let modelListRequest = 0;

/** The modes whose runs continue a conversation (Completion sends one prompt and keeps no turns). */
export function isConversationMode(mode: PlaygroundMode): boolean {
  return mode !== 'completion';
}

/** A key's models as the Model field offers them: the key's list (key-models-store), or why it has none. */
async function keyModelOffer(keyId: string): Promise<{ models: string[]; error: { message: string } | null }> {
  const { ids, problem } = await useKeyModelsStore.getState().modelIds(keyId);
  return { models: ids, error: problem ? { message: problem } : null };
}

export const usePlaygroundStore = create<PlaygroundState>()(persist((set, get) => ({
  // A new user starts in Chat, what most tools speak; Completion is the legacy API.
  mode: 'chat',
  authKind: 'key-by-name',
  keyId: '',
  virtualKey: '',
  provider: 'openai',
  providerToken: '',
  customHost: '',
  gatewayApiKey: '',
  model: '',
  prompt: '',
  promptIsJson: false,
  messages: [{ id: nextMessageId++, role: 'system', content: 'You are a helpful assistant.' }],
  parameters: INITIAL_PARAMETERS,
  gatewayOptions: EMPTY_GATEWAY_OPTIONS,
  view: 'single',
  modelOptions: [],
  modelOptionsStatus: 'idle',
  modelOptionsError: null,
  modelByKey: {},
  modelPickPending: false,
  modelNotice: null,

  ...NO_RUN,

  update(patch) {
    const current = get();
    // Another key: the old key's model would be sent to it (a 404 at a real provider), so the model is
    // cleared now and picked for the new key once its list is in (settleModelPick).
    const keyChanged = patch.keyId !== undefined && patch.keyId !== current.keyId && patch.model === undefined;
    const modelTyped = patch.model !== undefined && patch.model !== current.model;
    set({
      ...patch,
      ...(keyChanged ? { model: '', modelPickPending: Boolean(patch.keyId), modelNotice: null } : {}),
      ...(modelTyped ? { modelPickPending: false, modelNotice: null } : {}),
    });
  },
  settleModelPick(offered, keyName) {
    const state = get();
    if (!state.modelPickPending) return;
    const remembered = state.modelByKey[state.keyId];
    if (remembered && (!offered.length || offered.includes(remembered))) {
      set({ model: remembered, modelPickPending: false, modelNotice: `Model set to ${remembered}, the one last used with ${keyName}.` });
    } else if (offered.length) {
      set({ model: offered[0], modelPickPending: false, modelNotice: `Model set to ${offered[0]}, the first one ${keyName} serves.` });
    } else {
      set({ modelPickPending: false, modelNotice: `${keyName} lists no models: type the model to use.` });
    }
  },
  updateParameters(patch) {
    set({ parameters: { ...get().parameters, ...patch } });
  },
  updateGatewayOptions(patch) {
    set({ gatewayOptions: { ...get().gatewayOptions, ...patch } });
  },
  setNumber(name, raw) {
    const parameters = get().parameters;
    set({ parameters: { ...parameters, numbers: { ...parameters.numbers, [name]: raw } } });
  },
  addMessage(role) {
    set({ messages: [...get().messages, { id: nextMessageId++, role, content: '' }] });
  },
  updateMessage(id, patch) {
    set({ messages: get().messages.map((message) => (message.id === id ? { ...message, ...patch } : message)) });
  },
  removeMessage(id) {
    set({ messages: get().messages.filter((message) => message.id !== id) });
  },
  newConversation() {
    activeRun?.abort();
    activeRun = null;
    set({ messages: get().messages.filter((message) => message.role === 'system'), prompt: '', ...NO_RUN });
  },
  async resendFrom(id) {
    const state = get();
    if (state.phase === 'running') return;
    const at = state.messages.findIndex((message) => message.id === id);
    if (at < 0) return;
    const keep = state.messages[at].role === 'assistant' ? at : at + 1;
    set({ messages: state.messages.slice(0, keep) });
    await get().run({ transcriptOnly: true });
  },

  loadDraft(draft, keyId) {
    // A run still streaming belongs to the conversation being replaced: stopped, and its end not shown.
    activeRun?.abort();
    activeRun = null;
    set({
      modelPickPending: false,
      modelNotice: null,
      ...(keyId ? { authKind: 'key-by-name' as const, keyId } : {}),
      mode: draft.mode,
      model: draft.model,
      prompt: draft.prompt,
      promptIsJson: draft.promptIsJson,
      messages: draft.messages.map((message) => ({ id: nextMessageId++, ...message })),
      parameters: draft.parameters,
      ...NO_RUN,
    });
  },

  modelSourceChanged() {
    modelListRequest += 1;
    if (canListModels(authOf(get()))) set({ modelOptionsStatus: 'loading', modelOptionsError: null });
    else set({ modelOptions: [], modelOptionsStatus: 'idle', modelOptionsError: null });
  },

  async loadModelOptions() {
    const auth = authOf(get());
    const request = ++modelListRequest;
    if (!canListModels(auth)) {
      set({ modelOptions: [], modelOptionsStatus: 'idle', modelOptionsError: null });
      return;
    }
    set({ modelOptionsStatus: 'loading', modelOptionsError: null });
    try {
      const client = requireAdminClient();
      const blank = (value: string) => value.trim() || undefined;
      // A key picked by name offers the models its set-ups offer (one source, one cache: key-models-store).
      const offer =
        auth.kind === 'key-by-name'
          ? await keyModelOffer(auth.keyId)
          : auth.kind === 'virtual-key'
            ? await client.playgroundModelsFor({ virtualKey: auth.virtualKey.trim() })
            : await client.playgroundModelsFor({ provider: auth.provider, gatewayApiKey: blank(auth.gatewayApiKey), providerToken: blank(auth.providerToken), customHost: blank(auth.customHost) });
      if (request !== modelListRequest) return;
      if (offer.error) set({ modelOptions: [], modelOptionsStatus: 'error', modelOptionsError: offer.error.message });
      else set({ modelOptions: offer.models, modelOptionsStatus: 'ready' });
    } catch (error) {
      // The field still takes any name; the hint says why none are offered.
      if (request === modelListRequest) set({ modelOptions: [], modelOptionsStatus: 'error', modelOptionsError: describeError(error) });
    }
  },

  async run(runOptions = {}) {
    const state = runOptions.transcriptOnly ? { ...get(), prompt: '' } : get();
    if (state.phase === 'running') return;
    const auth = authOf(state);
    const { body, errors } = draftRequest(state);
    const options = buildGatewayOptionHeaders(state.gatewayOptions);
    const blocking = { ...authErrors(auth), ...options.errors, ...errors };
    const firstBlocking = Object.entries(blocking)[0];
    if (firstBlocking) {
      set({ phase: 'error', error: { message: firstBlocking[1] ?? 'Check the highlighted field', param: firstBlocking[0], status: null } });
      return;
    }

    const endpoint = endpointFor(state.mode);
    const stream = runStreams(state.mode, body, state.parameters);
    let target: { url: string; headers: Record<string, string> };
    try {
      target = runTarget(auth, runPathFor(state.mode, state.model, stream));
    } catch (error) {
      set({ phase: 'error', error: { message: describeError(error), param: null, status: null } });
      return;
    }
    const headers = { ...requestHeadersFor(state.mode, auth), ...target.headers, ...options.headers };
    const bodyText = stringifyJson(body);
    const conversation = isConversationMode(state.mode);
    const lastRun: RanRequest = { endpoint, auth: snippetAuthOf(auth), body, extraHeaders: options.headers, model: state.model, stream: state.parameters.stream };
    // A chat turn joins the transcript as it is sent, and the reply streams in under it; the composer is
    // free for the next one at once.
    const sentTurn: ChatMessage[] = conversation && state.prompt ? [{ id: nextMessageId++, role: 'user', content: state.prompt }] : [];
    const replyId = conversation ? nextMessageId++ : null;
    set({
      lastRun,
      replyId,
      ...(sentTurn.length ? { messages: [...get().messages, ...sentTurn], prompt: get().prompt === state.prompt ? '' : get().prompt } : {}),
      ...(auth.kind === 'key-by-name' && state.model.trim() ? { modelByKey: { ...get().modelByKey, [auth.keyId]: state.model.trim() } } : {}),
    });
    const controller = new AbortController();
    activeRun = controller;
    const startedAt = performance.now();
    const rawLines: string[] = [];
    const outputs: string[] = [];
    const tokenLogprobs: TokenLogprob[][] = [];
    const finishReasons: Array<string | null> = [];
    let stats: RunStats = { status: null, firstTokenMs: null, latencyMs: null, usage: null, finishReasons, traceId: null, eventCount: 0 };
    const raw: RawExchange = {
      request: { method: 'POST', url: `${globalThis.location?.origin ?? ''}${target.url}`, headers: maskHeaders(headers), body: stringifyJson(body, 2) },
      response: { status: null, headers: {}, body: '' },
    };
    set({ phase: 'running', outputs: [], tokenLogprobs: [], stats, error: null, raw });
    /**
     * The reply as a turn of the conversation, so the next Run continues from it: whole when done, as far
     * as it came when stopped (marked so); a failed run adds none. Only while this run's turn is still the
     * conversation's (a new chat or a loaded draft in the meantime drops it).
     */
    const replyTurn = (phase: RunPhase): Partial<PlaygroundState> => {
      const reply = outputs[0] ?? '';
      if (replyId === null || !reply || (phase !== 'done' && phase !== 'stopped') || get().replyId !== replyId) return {};
      return { messages: [...get().messages, { id: replyId, role: 'assistant', content: reply, ...(phase === 'stopped' ? { stopped: true } : {}) }] };
    };

    try {
      const outcome = await callGateway(
        { endpoint, url: target.url, headers, bodyText, stream, readPiece: pieceReaderFor(state.mode) },
        {
          onResponseStart(status, responseHeaders) {
            if (activeRun !== controller) return;
            stats = { ...stats, status, traceId: responseHeaders['x-gateway-trace-id'] ?? null };
            raw.response = { status, headers: responseHeaders, body: '' };
            set({ stats, raw: { ...raw } });
          },
          onRawText(text) {
            rawLines.push(text);
          },
          onPiece(piece) {
            if (activeRun !== controller) return;
            let sawText = false;
            for (const choice of piece.choices) {
              outputs[choice.index] = (outputs[choice.index] ?? '') + choice.text;
              if (choice.tokens.length) tokenLogprobs[choice.index] = (tokenLogprobs[choice.index] ?? []).concat(choice.tokens);
              if (choice.text) sawText = true;
              if (choice.finishReason) finishReasons[choice.index] = choice.finishReason;
            }
            stats = {
              ...stats,
              eventCount: stats.eventCount + 1,
              usage: mergeUsage(stats.usage, piece.usage),
              finishReasons: [...finishReasons],
              firstTokenMs: stats.firstTokenMs ?? (sawText ? Math.round(performance.now() - startedAt) : null),
            };
            set({ outputs: [...outputs], tokenLogprobs: [...tokenLogprobs], stats });
          },
        },
        controller.signal,
      );
      if (activeRun !== controller) return;
      stats = { ...stats, latencyMs: Math.round(performance.now() - startedAt) };
      raw.response.body = rawLines.join(stream ? '\n\n' : '');
      const phase: RunPhase = controller.signal.aborted ? 'stopped' : outcome.streamError ? 'error' : 'done';
      set({
        phase,
        stats,
        raw: { ...raw },
        error: outcome.streamError ? { message: outcome.streamError, param: null, status: outcome.status } : null,
        ...replyTurn(phase),
      });
    } catch (error) {
      if (activeRun !== controller) return;
      stats = { ...stats, latencyMs: Math.round(performance.now() - startedAt) };
      raw.response.body = rawLines.join(stream ? '\n\n' : '');
      if (isAbortError(error) || controller.signal.aborted) {
        set({ phase: 'stopped', stats, raw: { ...raw }, ...replyTurn('stopped') });
      } else {
        const apiError = error instanceof ApiError ? error : null;
        set({
          phase: 'error',
          stats,
          raw: { ...raw },
          error: { message: describeError(error), param: apiError?.param ?? null, status: apiError?.status ?? null },
        });
      }
    } finally {
      if (activeRun === controller) activeRun = null;
    }
  },
  stop() {
    activeRun?.abort();
  },
}), {
  name: 'gatehouse.playground',
  version: 1,
  // Without a browser (unit tests) the draft lives in memory.
  storage: createJSONStorage(() => (typeof localStorage === 'undefined' ? inMemoryStorage() : localStorage)),
  partialize: (state): PersistedDraft => ({
    mode: state.mode,
    authKind: state.authKind,
    keyId: state.keyId,
    view: state.view,
    provider: state.provider,
    customHost: state.customHost,
    model: state.model,
    prompt: state.prompt,
    promptIsJson: state.promptIsJson,
    messages: state.messages,
    parameters: state.parameters,
    gatewayOptions: state.gatewayOptions,
    modelByKey: state.modelByKey,
  }),
  merge: (persisted, current) => {
    const draft = (persisted ?? {}) as Partial<PersistedDraft>;
    const messages = draft.messages ?? current.messages;
    nextMessageId = Math.max(nextMessageId, ...messages.map((message) => message.id + 1));
    return { ...current, ...draft, messages, parameters: { ...current.parameters, ...draft.parameters }, gatewayOptions: { ...current.gatewayOptions, ...draft.gatewayOptions } };
  },
}));
