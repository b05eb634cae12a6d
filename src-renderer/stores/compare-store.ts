// The Playground's compare view: the prompt being edited, sent at the same time to two virtual keys
// (each with its own model), answers side by side with latency, tokens and, when the gateway's log
// entry carries one, cost. Both runs go through the admin API as keys picked by name.
import { create } from 'zustand';
import { ApiError, describeError, isAbortError } from '../api/api-error';
import { callGateway, mergeUsage, type Usage } from '../api/gateway-client';
import type { LogEntry } from '../api/types';
import { buildGatewayOptionHeaders } from '../playground/gateway-options';
import { stringifyJson } from '../playground/json-text';
import { draftRequest, endpointFor, pieceReaderFor, requestHeadersFor, runPathFor, runStreams, runTarget, usePlaygroundStore, type RunError, type RunPhase } from './playground-store';
import { requireAdminClient } from './session-store';
import { useKeysStore } from './keys-store';
import { useKeyModelsStore } from './key-models-store';

export interface CompareSide {
  keyId: string;
  model: string;
  phase: RunPhase;
  output: string;
  latencyMs: number | null;
  firstTokenMs: number | null;
  usage: Usage | null;
  /** From the finished log entry, when the gateway prices the call. */
  costUsd: number | null;
  status: number | null;
  traceId: string | null;
  error: RunError | null;
}

export type SideIndex = 0 | 1;

const EMPTY_SIDE: CompareSide = { keyId: '', model: '', phase: 'idle', output: '', latencyMs: null, firstTokenMs: null, usage: null, costUsd: null, status: null, traceId: null, error: null };

/** How long to wait for the log entry of a finished run (rows are written in batches, off the request). */
const LOG_ENTRY_WAIT_MS = 3_000;
const LOG_ENTRY_POLL_MS = 150;

interface CompareState {
  sides: [CompareSide, CompareSide];
  /** Each key's model list, once asked for. */
  modelsByKey: Record<string, string[]>;
  /** A side given another key (and no model) gets the model last used with it, else the first it lists. */
  updateSide(index: SideIndex, patch: Partial<Pick<CompareSide, 'keyId' | 'model'>>): void;
  /**
   * Fills the sides not set yet when the compare view opens: A with the Playground's key and model, B
   * with another key (or the same key's next model), so a first Compare runs without typing.
   */
  prefill(): void;
  loadModels(keyId: string): Promise<void>;
  run(): Promise<void>;
  stop(): void;
}

let activeCompare: AbortController | null = null;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The log entry of a trace id, once written; null if it does not show up in time. */
async function logEntryOf(traceId: string, signal: AbortSignal): Promise<LogEntry | null> {
  const deadline = Date.now() + LOG_ENTRY_WAIT_MS;
  while (!signal.aborted && Date.now() < deadline) {
    try {
      const page = await requireAdminClient().logs({ q: traceId, limit: 5 }, signal);
      const found = page.items.find((item) => item.traceId === traceId);
      if (found) return found;
    } catch {
      return null;
    }
    await sleep(LOG_ENTRY_POLL_MS);
  }
  return null;
}

/** A cost the log entry may carry (added by the pricing work); absent or not a number reads as unknown. */
export function costOf(entry: LogEntry | null): number | null {
  const cost = entry ? (entry as LogEntry & { costUsd?: unknown }).costUsd : undefined;
  return typeof cost === 'number' && Number.isFinite(cost) ? cost : null;
}

export const useCompareStore = create<CompareState>()((set, get) => {
  const patchSide = (index: SideIndex, patch: Partial<CompareSide>) => {
    const sides = [...get().sides] as [CompareSide, CompareSide];
    sides[index] = { ...sides[index], ...patch };
    set({ sides });
  };

  async function runSide(index: SideIndex, signal: AbortSignal, traceBase: string): Promise<void> {
    const playground = usePlaygroundStore.getState();
    const side = get().sides[index];
    const auth = { kind: 'key-by-name' as const, keyId: side.keyId };
    const { body, errors } = draftRequest({ ...playground, model: side.model });
    const options = buildGatewayOptionHeaders(playground.gatewayOptions);
    const blocking = Object.entries({ ...(side.keyId ? {} : { keyId: 'Choose a key' }), ...options.errors, ...errors })[0];
    if (blocking) {
      patchSide(index, { ...EMPTY_SIDE, keyId: side.keyId, model: side.model, phase: 'error', error: { message: blocking[1] ?? 'Check this side', param: blocking[0], status: null } });
      return;
    }
    const endpoint = endpointFor(playground.mode);
    const stream = runStreams(playground.mode, body, playground.parameters);
    const target = runTarget(auth, runPathFor(playground.mode, side.model, stream));
    // Each side its own trace id, so each finds its own log entry.
    const traceId = `${traceBase}-${index === 0 ? 'a' : 'b'}`;
    const headers = { ...requestHeadersFor(playground.mode, auth), ...target.headers, ...options.headers, 'x-gateway-trace-id': traceId };
    const started = performance.now();
    let output = '';
    let usage: Usage | null = null;
    let firstTokenMs: number | null = null;
    patchSide(index, { phase: 'running', output: '', latencyMs: null, firstTokenMs: null, usage: null, costUsd: null, status: null, traceId, error: null });
    try {
      const outcome = await callGateway(
        { endpoint, url: target.url, headers, bodyText: stringifyJson(body), stream, readPiece: pieceReaderFor(playground.mode) },
        {
          onResponseStart(status) {
            patchSide(index, { status });
          },
          onRawText() {},
          onPiece(piece) {
            const text = piece.choices.filter((choice) => choice.index === 0).map((choice) => choice.text).join('');
            if (text && firstTokenMs === null) firstTokenMs = Math.round(performance.now() - started);
            output += text;
            usage = mergeUsage(usage, piece.usage);
            patchSide(index, { output, usage, firstTokenMs });
          },
        },
        signal,
      );
      patchSide(index, {
        phase: outcome.streamError ? 'error' : 'done',
        latencyMs: Math.round(performance.now() - started),
        error: outcome.streamError ? { message: outcome.streamError, param: null, status: outcome.status } : null,
      });
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      if (isAbortError(error) || signal.aborted) {
        patchSide(index, { phase: 'stopped', latencyMs });
        return;
      }
      const apiError = error instanceof ApiError ? error : null;
      patchSide(index, { phase: 'error', latencyMs, error: { message: describeError(error), param: apiError?.param ?? null, status: apiError?.status ?? null } });
    }
    // Tokens the answer did not report (a stream without usage) and the cost come from the log entry.
    const entry = await logEntryOf(traceId, signal);
    if (entry) {
      const current = get().sides[index].usage;
      patchSide(index, {
        costUsd: costOf(entry),
        usage: current ?? { promptTokens: entry.promptTokens, completionTokens: entry.completionTokens, totalTokens: entry.promptTokens !== null && entry.completionTokens !== null ? entry.promptTokens + entry.completionTokens : null },
      });
    }
  }

  /** A side with a key and no model yet takes one its key lists: on the same key as the other side, another one. */
  const fillModel = (index: SideIndex) => {
    const side = get().sides[index];
    const listed = get().modelsByKey[side.keyId];
    if (side.model || !listed?.length) return;
    const other = get().sides[index === 0 ? 1 : 0];
    const taken = other.keyId === side.keyId ? other.model : '';
    patchSide(index, { model: listed.find((model) => model !== taken) ?? listed[0] });
  };

  return {
    sides: [{ ...EMPTY_SIDE }, { ...EMPTY_SIDE }],
    modelsByKey: {},
    updateSide(index, patch) {
      const keyChanged = patch.keyId !== undefined && patch.keyId !== get().sides[index].keyId && patch.model === undefined;
      patchSide(index, keyChanged ? { ...patch, model: usePlaygroundStore.getState().modelByKey[patch.keyId ?? ''] ?? '' } : patch);
      if (patch.keyId) void get().loadModels(patch.keyId).then(() => fillModel(index));
    },
    prefill() {
      const playground = usePlaygroundStore.getState();
      const [a, b] = get().sides;
      if (!a.keyId && !a.model && playground.keyId) patchSide(0, { keyId: playground.keyId, model: playground.model.trim() });
      if (!b.keyId && !b.model) {
        const keyA = get().sides[0].keyId;
        const other = useKeysStore.getState().virtualKeys.find((key) => key.id !== keyA);
        const keyId = other?.id ?? keyA;
        if (keyId) patchSide(1, { keyId, model: other ? (playground.modelByKey[other.id] ?? '') : '' });
      }
      for (const index of [0, 1] as const) {
        const keyId = get().sides[index].keyId;
        if (keyId) void get().loadModels(keyId).then(() => fillModel(index));
      }
    },
    async loadModels(keyId) {
      if (!keyId || get().modelsByKey[keyId]) return;
      try {
        // The models the key's set-ups offer too (one source and cache for a key's models).
        const { ids } = await useKeyModelsStore.getState().modelIds(keyId);
        set({ modelsByKey: { ...get().modelsByKey, [keyId]: ids } });
      } catch {
        // The model fields still take any name.
      }
    },
    async run() {
      if (get().sides.some((side) => side.phase === 'running')) return;
      const controller = new AbortController();
      activeCompare = controller;
      const traceBase = `compare-${globalThis.crypto.randomUUID().slice(0, 8)}`;
      try {
        await Promise.all([runSide(0, controller.signal, traceBase), runSide(1, controller.signal, traceBase)]);
      } finally {
        if (activeCompare === controller) activeCompare = null;
      }
    },
    stop() {
      activeCompare?.abort();
    },
  };
});
