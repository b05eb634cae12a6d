// Probes loopback ports for local model servers. Every port at once, every path of a port at once,
// each port within one deadline: a closed port costs a refused connection, a server that hangs
// costs the deadline and no more, and nothing here ever waits on the gateway's own work.
import { Agent, request } from 'undici';
import { IDENTIFYING_PATHS, identify, originOf, type Answer, type Answers } from './identify.js';
import type { DiscoveredServer, LocalModel } from './types.js';

/** Per port: long enough for a busy local server, short enough that a sweep feels instant. */
export const DEFAULT_PROBE_TIMEOUT_MS = 800;
/** An identifying answer is small; a server that streams more is not one of ours. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Ollama lists context lengths only per model (`/api/show`); a long list keeps its first ones. */
const MAX_OLLAMA_SHOWS = 24;

/** Only these addresses are ever probed: the IPv4 loopback first, the IPv6 one if nothing listens there. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const;

export interface ProbeOptions {
  ports: readonly number[];
  /** The deadline for each port, all its requests included. */
  timeoutMs?: number;
  /** Ends the whole sweep early (the app stopping). */
  signal?: AbortSignal;
}

/** One pool for probes, apart from the providers' pool; connections close after each answer. The deadline is the signal's. */
const probeAgent = new Agent({ connect: { timeout: 10_000 }, keepAliveTimeout: 1_000, pipelining: 0 });

type Outcome = { answer: Answer } | { refused: true } | { failed: true };

async function readCapped(body: AsyncIterable<Buffer>): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const CONNECTION_REFUSED = new Set(['ECONNREFUSED', 'EADDRNOTAVAIL', 'ENETUNREACH', 'EAFNOSUPPORT', 'EHOSTUNREACH']);

async function ask(origin: string, path: string, signal: AbortSignal, init: { method?: 'GET' | 'POST'; body?: string } = {}): Promise<Outcome> {
  try {
    const response = await request(`${origin}${path}`, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body,
      signal,
      dispatcher: probeAgent,
      // A redirect is not followed (undici's request never does): nothing but this address is asked.
      reset: true,
    });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump().catch(() => undefined);
      return { failed: true };
    }
    const raw = await readCapped(response.body);
    if (raw === undefined) {
      response.body.destroy();
      return { failed: true };
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { answer: { status: response.statusCode, json } };
  } catch (error) {
    const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    return code && CONNECTION_REFUSED.has(code) ? { refused: true } : { failed: true };
  }
}

/** Context lengths of Ollama models from `/api/show` (`model_info['<arch>.context_length']`), within the port's deadline. */
async function addOllamaContextLengths(origin: string, models: LocalModel[], signal: AbortSignal): Promise<void> {
  await Promise.all(
    models.slice(0, MAX_OLLAMA_SHOWS).map(async (model) => {
      const outcome = await ask(origin, '/api/show', signal, { method: 'POST', body: JSON.stringify({ model: model.id }) });
      if (!('answer' in outcome)) return;
      const info = (outcome.answer.json as { model_info?: Record<string, unknown> } | undefined)?.model_info;
      if (!info || typeof info !== 'object') return;
      const architecture = info['general.architecture'];
      const length = typeof architecture === 'string' ? info[`${architecture}.context_length`] : undefined;
      if (typeof length === 'number' && Number.isFinite(length) && length > 0) model.contextLength = length;
    }),
  );
}

/**
 * Whether an OpenAI-compatible server lacks the Responses API: an empty `POST {base}/responses` is refused
 * (400/422) by a server that has it and answered 404 by one that has not. Undefined when it could not tell.
 */
async function hasNoResponsesApi(base: string, signal: AbortSignal): Promise<boolean | undefined> {
  try {
    const response = await request(`${base}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal, dispatcher: probeAgent, reset: true });
    await response.body.dump().catch(() => undefined);
    if (response.statusCode === 404) return true;
    return response.statusCode < 500 ? false : undefined;
  } catch {
    return undefined;
  }
}

type HostProbe = { server: DiscoveredServer } | { refused: true } | { none: true };

/**
 * A signal that aborts after `timeoutMs` (or with `outer`), held by a real timer until `release()`.
 * Not AbortSignal.any([AbortSignal.timeout()]): its timeout signal can be garbage-collected before it
 * fires (nodejs/node#57736), and a probe of a hanging server then waits for ever (seen under load: a
 * sweep that never ended).
 */
function deadline(timeoutMs: number, outer?: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer!.reason);
  const timer = setTimeout(() => controller.abort(new DOMException('The probe deadline passed', 'TimeoutError')), timeoutMs);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

async function probeHost(host: string, port: number, signal: AbortSignal, timeoutMs: number, outer?: AbortSignal): Promise<HostProbe> {
  const origin = originOf(host, port);
  const outcomes = await Promise.all(IDENTIFYING_PATHS.map(async (path) => [path, await ask(origin, path, signal)] as const));
  if (outcomes.every(([, outcome]) => 'refused' in outcome)) return { refused: true };
  const answers: Answers = {};
  for (const [path, outcome] of outcomes) if ('answer' in outcome) answers[path] = outcome.answer;
  const server = identify(host, port, answers);
  if (!server) return { none: true };
  if (server.connection.provider === 'openai-compatible') {
    const asking = deadline(timeoutMs, outer);
    try {
      const chatOnly = await hasNoResponsesApi(server.connection.customHost, asking.signal);
      if (chatOnly !== undefined) server.chatOnly = chatOnly;
    } finally {
      asking.release();
    }
  }
  // Its own deadline: a slow /api/show costs the context lengths, never the server it already named.
  if (server.kind === 'ollama') {
    const showing = deadline(timeoutMs, outer);
    try {
      await addOllamaContextLengths(origin, server.models, showing.signal);
    } finally {
      showing.release();
    }
  }
  return { server };
}

/**
 * What listens on one port of this machine, if it is a model server. Naming it takes at most timeoutMs
 * whatever the port holds; an Ollama found then gets as long again for its models' context lengths.
 */
export async function probePort(port: number, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS, outer?: AbortSignal): Promise<DiscoveredServer | undefined> {
  const { signal, release } = deadline(timeoutMs, outer);
  try {
    for (const host of LOOPBACK_HOSTS) {
      if (signal.aborted) return undefined;
      const result = await probeHost(host, port, signal, timeoutMs, outer);
      if ('server' in result) return result.server;
      // Something answered on this address (even badly): the other address is the same server or none.
      if ('none' in result) return undefined;
    }
    return undefined;
  } finally {
    release();
  }
}

/** Every port at once; the servers found, in the order of the ports. */
export async function discoverLocalServers(options: ProbeOptions): Promise<DiscoveredServer[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const found = await Promise.all([...new Set(options.ports)].map((port) => probePort(port, timeoutMs, options.signal)));
  return found.filter((server): server is DiscoveredServer => server !== undefined);
}
