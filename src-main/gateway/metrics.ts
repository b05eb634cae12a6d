// Prometheus metrics for GET /metrics: counted from the same entry each finished call hands to the
// request log (app.ts wraps the log dependency), so the proxy does nothing extra for them. A call is
// counted into plain numbers (a few map lookups and additions, about 0.2 µs); prom-client's registry
// reads them only when /metrics is scraped. Label values are bounded so a client sending random model
// names cannot grow the series without limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
// prom-client is loaded on the first scrape: most gateways are never scraped, and it costs some 2 MB of RSS.
import type { Metric, Registry } from 'prom-client';
import { errorBody } from '../core/errors.js';
import { sendJson } from '../core/http-io.js';
import { isLoopbackHostHeader } from '../core/loopback.js';
import { AdminTokenGuard, AdminTokenThrottled } from './admin-token-guard.js';
import type { CallRecord } from '../core/call-record.js';
import { bearerToken } from './gateway-headers.js';

/** Latency buckets in seconds: a local gateway answers a token count in milliseconds, a long generation in minutes. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The value a label takes once its cap of distinct values is reached. */
export const OVERFLOW_LABEL = 'other';
/** Provider or model not known for the call (it failed before either was read). */
export const UNKNOWN_LABEL = 'unknown';
/** The key label of a call made with the server's GATEWAY_API_KEY. */
export const ENVIRONMENT_KEY_LABEL = 'env';
/** The key label of a call no key was accepted for. */
export const NO_KEY_LABEL = 'none';

export interface MetricsLimits {
  /** Distinct model names before further ones count as `other`. */
  models: number;
  /** Distinct providers (a request may name any provider, known or not). */
  providers: number;
  keys: number;
  routes: number;
  /** Longer label values count as `other` (a model name is short; a 10 kB one is noise). */
  valueLength: number;
}

export const DEFAULT_METRICS_LIMITS: MetricsLimits = { models: 500, providers: 100, keys: 1000, routes: 200, valueLength: 200 };

export interface GatewayMetricsOptions {
  /** A key's name by its id (the key store); the key itself is never a label. */
  keyName: (keyId: string) => string | undefined;
  /** Whether the server has a GATEWAY_API_KEY: a call with no key id then came in with it. */
  hasEnvironmentKey: boolean;
  limits?: Partial<MetricsLimits>;
  /** Process metrics (CPU, memory, event loop lag, GC); on unless turned off. */
  processMetrics?: boolean;
  /** Families other parts of the server report (team mode's Redis health), read at each scrape. */
  extraFamilies?: ExtraFamily[];
}

/** A counter or gauge whose figures some other part of the server keeps. */
export interface ExtraFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  values: () => { labels: Record<string, string>; value: number }[];
}

/** Takes values as they come until `max` distinct ones are held; later new ones read as `other`. */
class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly maxLength: number,
  ) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.max || raw.length > this.maxLength) return OVERFLOW_LABEL;
    this.seen.add(raw);
    return raw;
  }
}

const TOKEN_KINDS = ['input', 'output', 'cached', 'cache_write', 'reasoning'] as const;

/** One histogram's figures for one series: counts per bucket (not cumulative; the last is +Inf), sum, count. */
class HistogramCell {
  readonly counts = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    // A figure that is not a duration would spoil the sum for good.
    if (!(seconds >= 0 && seconds < Infinity)) return;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    this.counts[bucket]++;
    this.sum += seconds;
    this.count++;
  }
}

/** Everything counted for one provider/model/key/route. */
interface Series {
  labels: Record<string, string>;
  /** By status class (2xx …). */
  requests: Map<string, number>;
  /** By status code. */
  errors: Map<string, number>;
  latency: HistogramCell;
  ttfb: HistogramCell;
  /** By TOKEN_KINDS index. */
  tokens: Float64Array;
  costUsd: number;
  unpriced: number;
}

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

type Family = { name: string; help: string; type: 'counter' | 'histogram'; samples: (series: readonly Series[]) => Sample[] };

function counterFamily(name: string, help: string, samples: Family['samples']): Family {
  return { name, help, type: 'counter', samples };
}

function histogramFamily(name: string, help: string, cell: (series: Series) => HistogramCell): Family {
  return {
    name,
    help,
    type: 'histogram',
    samples: (all) => {
      const samples: Sample[] = [];
      for (const series of all) {
        const figures = cell(series);
        if (figures.count === 0) continue;
        let cumulative = 0;
        for (let bucket = 0; bucket <= LATENCY_BUCKETS.length; bucket++) {
          cumulative += figures.counts[bucket];
          const le = bucket < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[bucket] : '+Inf';
          samples.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le }, value: cumulative });
        }
        samples.push({ metricName: `${name}_sum`, labels: series.labels, value: figures.sum });
        samples.push({ metricName: `${name}_count`, labels: series.labels, value: figures.count });
      }
      return samples;
    },
  };
}

const FAMILIES: Family[] = [
  counterFamily('gatehouse_requests_total', 'Calls finished, by status class (2xx, 4xx, 5xx).', (all) =>
    all.flatMap((series) => [...series.requests].map(([statusClass, value]) => ({ labels: { ...series.labels, status_class: statusClass }, value }))),
  ),
  counterFamily('gatehouse_errors_total', 'Calls that failed: an error status, or a stream cut by an error after it started; by status code.', (all) =>
    all.flatMap((series) => [...series.errors].map(([status, value]) => ({ labels: { ...series.labels, status }, value }))),
  ),
  histogramFamily('gatehouse_request_duration_seconds', 'Time from the request to the last byte of the answer.', (series) => series.latency),
  histogramFamily('gatehouse_time_to_first_byte_seconds', 'Time from the request to the first byte of the answer sent to the client (calls that sent one).', (series) => series.ttfb),
  counterFamily(
    'gatehouse_tokens_total',
    'Tokens by kind: input (all of them, cached included), output (reasoning included), cached (read from the prompt cache), cache_write, reasoning.',
    (all) =>
      all.flatMap((series) => TOKEN_KINDS.flatMap((kind, index) => (series.tokens[index] > 0 ? [{ labels: { ...series.labels, kind }, value: series.tokens[index] }] : []))),
  ),
  counterFamily('gatehouse_cost_usd_total', 'Spend in US dollars, from the model catalog; calls of unknown price are not in it.', (all) =>
    all.map((series) => ({ labels: series.labels, value: series.costUsd })),
  ),
  counterFamily(
    'gatehouse_unpriced_requests_total',
    'Calls that used tokens but whose price is unknown (model not in the catalog): their spend is missing from gatehouse_cost_usd_total.',
    (all) => all.filter((series) => series.unpriced > 0).map((series) => ({ labels: series.labels, value: series.unpriced })),
  ),
];

/** Requests refused before any work: a foreign Origin or Host (never logged), or no valid key (logged coalesced). */
const REFUSED_FAMILY = {
  name: 'gatehouse_refused_requests_total',
  help: 'Requests refused before any work, by reason: foreign_origin, foreign_host (403, not logged), unauthenticated (401, logged coalesced per window).',
};

/** MCP calls (tools/call, resources/read, prompts/get through /mcp), apart from the model calls' series. */
const MCP_CALLS_FAMILY = { name: 'gatehouse_mcp_calls_total', help: 'MCP calls through /mcp by server, tool (prompt, resource) and status (200, 422 the tool answered isError, 4xx refused, 499 cancelled, 502 server failed, 504 timed out).' };
const MCP_DURATION_FAMILY = { name: 'gatehouse_mcp_call_duration_seconds', help: 'Time an MCP call through /mcp took, by server and tool.' };

interface McpSeries {
  labels: { server: string; tool: string };
  byStatus: Map<string, number>;
  duration: HistogramCell;
}

/** Process metrics are per process: one registry for them, however many gateways a process runs (tests). */
let processRegistry: Registry | undefined;

async function sharedProcessRegistry(): Promise<Registry> {
  if (!processRegistry) {
    const { Registry, collectDefaultMetrics } = await import('prom-client');
    // Another scrape may have made it while this one waited for the import.
    if (!processRegistry) {
      processRegistry = new Registry();
      collectDefaultMetrics({ register: processRegistry });
    }
  }
  return processRegistry;
}

/** Prometheus text format 0.0.4, prom-client's Registry.PROMETHEUS_CONTENT_TYPE. */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class GatewayMetrics {
  /** This gateway's own registry, never prom-client's global one (which other code in the process may fill); made on the first scrape. */
  private registry: Promise<Registry> | null = null;
  private readonly withProcessMetrics: boolean;
  private readonly keyName: (keyId: string) => string | undefined;
  private readonly hasEnvironmentKey: boolean;
  private readonly providers: BoundedLabel;
  private readonly models: BoundedLabel;
  private readonly keys: BoundedLabel;
  private readonly routes: BoundedLabel;
  private readonly series = new Map<string, Series>();
  /** Requests refused before any work, by reason (front.ts's guard, and 401s without a valid key). */
  private readonly refusals = new Map<string, number>();
  private readonly mcpServers = new BoundedLabel(200, 200);
  private readonly mcpTools = new BoundedLabel(2_000, 200);
  private readonly mcpSeries = new Map<string, McpSeries>();
  private failureReported = false;
  private readonly extraFamilies: ExtraFamily[];

  constructor(options: GatewayMetricsOptions) {
    this.extraFamilies = options.extraFamilies ?? [];
    const limits = { ...DEFAULT_METRICS_LIMITS, ...options.limits };
    this.keyName = options.keyName;
    this.hasEnvironmentKey = options.hasEnvironmentKey;
    this.withProcessMetrics = options.processMetrics ?? true;
    this.providers = new BoundedLabel(limits.providers, limits.valueLength);
    this.models = new BoundedLabel(limits.models, limits.valueLength);
    this.keys = new BoundedLabel(limits.keys, limits.valueLength);
    this.routes = new BoundedLabel(limits.routes, limits.valueLength);
  }

  /**
   * Counts one finished call. O(1): labels are resolved from memory, and the tokens and cost are the
   * entry's (the proxy has read a relayed body's usage before handing the entry over).
   */
  observe(entry: CallRecord): void {
    try {
      this.count(entry);
    } catch (error) {
      // Metrics must never cost a call its log row (the wrapper appends it after this).
      if (!this.failureReported) console.error('Gatehouse: a call could not be counted for /metrics', error);
      this.failureReported = true;
    }
  }

  /** A /v1 request refused for its Origin or Host: never logged, so counted here alone. */
  refused(reason: string): void {
    this.refusals.set(reason, (this.refusals.get(reason) ?? 0) + 1);
  }

  /** Everything counted so far in Prometheus text format, with the process metrics after it. */
  async render(): Promise<string> {
    this.registry ??= this.makeRegistry();
    const own = await (await this.registry).metrics();
    return this.withProcessMetrics ? `${own}\n${await (await sharedProcessRegistry()).metrics()}` : own;
  }

  get contentType(): string {
    return PROMETHEUS_CONTENT_TYPE;
  }

  private async makeRegistry(): Promise<Registry> {
    const { Registry } = await import('prom-client');
    const registry = new Registry();
    for (const family of FAMILIES) {
      // prom-client's own metric classes hash the label object on every increment (about 0.5 µs each, six a
      // call); the registry needs of a metric only its name, help, type and get(), which reads the figures.
      const metric = {
        name: family.name,
        help: family.help,
        type: family.type,
        aggregator: 'sum',
        get: async () => ({ name: family.name, help: family.help, type: family.type, aggregator: 'sum', values: family.samples([...this.series.values()]) }),
      };
      registry.registerMetric(metric as unknown as Metric);
    }
    const refused = { name: REFUSED_FAMILY.name, help: REFUSED_FAMILY.help, type: 'counter', aggregator: 'sum' };
    const refusedValues = () => [...this.refusals].map(([reason, value]) => ({ labels: { reason }, value }));
    registry.registerMetric({ ...refused, get: async () => ({ ...refused, values: refusedValues() }) } as unknown as Metric);
    for (const family of this.extraFamilies) {
      const head = { name: family.name, help: family.help, type: family.type, aggregator: 'sum' };
      registry.registerMetric({ ...head, get: async () => ({ ...head, values: family.values() }) } as unknown as Metric);
    }
    const mcpCalls = { ...MCP_CALLS_FAMILY, type: 'counter', aggregator: 'sum' };
    const mcpCallValues = () => [...this.mcpSeries.values()].flatMap((series) => [...series.byStatus].map(([status, value]) => ({ labels: { ...series.labels, status }, value })));
    registry.registerMetric({ ...mcpCalls, get: async () => ({ ...mcpCalls, values: mcpCallValues() }) } as unknown as Metric);
    const duration = histogramFamily(MCP_DURATION_FAMILY.name, MCP_DURATION_FAMILY.help, (series) => series.latency);
    const mcpDuration = { name: duration.name, help: duration.help, type: 'histogram', aggregator: 'sum' };
    const durationValues = () =>
      duration.samples([...this.mcpSeries.values()].map((series) => ({ labels: series.labels, latency: series.duration }) as unknown as Series));
    registry.registerMetric({ ...mcpDuration, get: async () => ({ ...mcpDuration, values: durationValues() }) } as unknown as Metric);
    return registry;
  }

  private count(entry: CallRecord): void {
    if (!Number.isInteger(entry.status)) return;
    if (entry.mcp) return this.countMcp(entry, entry.mcp);
    if (entry.unauthenticated === true) this.refused('unauthenticated');
    const series = this.seriesFor(entry);
    const statusClass = STATUS_CLASSES[Math.floor(entry.status / 100)] ?? `${Math.floor(entry.status / 100)}xx`;
    series.requests.set(statusClass, (series.requests.get(statusClass) ?? 0) + 1);
    if (entry.status >= 400 || entry.error !== null) {
      const status = String(entry.status);
      series.errors.set(status, (series.errors.get(status) ?? 0) + 1);
    }
    series.latency.observe(entry.latencyMs / 1000);
    if (entry.ttfbMs !== null) series.ttfb.observe(entry.ttfbMs / 1000);
    addTokens(series, 0, entry.promptTokens);
    addTokens(series, 1, entry.completionTokens);
    addTokens(series, 2, entry.cacheReadTokens);
    addTokens(series, 3, entry.cacheWriteTokens);
    addTokens(series, 4, entry.reasoningTokens);
    // The catalog's price; null: the model is not in it (undefined: an entry made without pricing).
    const cost = entry.costUsd;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) series.costUsd += cost;
    else if (cost === null && ((entry.promptTokens ?? 0) > 0 || (entry.completionTokens ?? 0) > 0)) series.unpriced++;
  }

  private countMcp(entry: CallRecord, mcp: NonNullable<CallRecord['mcp']>): void {
    const server = this.mcpServers.value(mcp.server);
    const tool = this.mcpTools.value(mcp.tool);
    const id = `${server}\u0000${tool}`;
    let series = this.mcpSeries.get(id);
    if (!series) {
      series = { labels: { server, tool }, byStatus: new Map(), duration: new HistogramCell() };
      this.mcpSeries.set(id, series);
    }
    const status = String(entry.status);
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
    series.duration.observe(entry.latencyMs / 1000);
  }

  private seriesFor(entry: CallRecord): Series {
    const provider = entry.provider === null ? UNKNOWN_LABEL : this.providers.value(entry.provider);
    const model = entry.model === null ? UNKNOWN_LABEL : this.models.value(entry.model);
    const key = this.keys.value(this.keyLabel(entry));
    // Routing rules (another branch) may name the route a call took; today no entry has one.
    const routeName = (entry as { route?: unknown }).route;
    const route = typeof routeName === 'string' && routeName !== '' ? this.routes.value(routeName) : undefined;
    const id = route === undefined ? `${provider}\u0000${model}\u0000${key}` : `${provider}\u0000${model}\u0000${key}\u0000${route}`;
    let series = this.series.get(id);
    if (!series) {
      series = {
        labels: route === undefined ? { provider, model, key } : { provider, model, key, route },
        requests: new Map(),
        errors: new Map(),
        latency: new HistogramCell(),
        ttfb: new HistogramCell(),
        tokens: new Float64Array(TOKEN_KINDS.length),
        costUsd: 0,
        unpriced: 0,
      };
      this.series.set(id, series);
    }
    return series;
  }

  private keyLabel(entry: CallRecord): string {
    if (entry.keyId !== null) return this.keyName(entry.keyId) ?? entry.keyId;
    // No key id: the environment key, unless no key was accepted at all (401), or there is none.
    return this.hasEnvironmentKey && entry.status !== 401 ? ENVIRONMENT_KEY_LABEL : NO_KEY_LABEL;
  }
}

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

function addTokens(series: Series, kind: number, count: number | null | undefined): void {
  if (typeof count === 'number' && count > 0 && count < Infinity) series.tokens[kind] += count;
}

/** IPv4 and IPv6 loopback peers, including IPv4 loopback mapped into IPv6 (`::ffff:127.0.0.1`). */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const lower = address.toLowerCase();
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const v4 = lower.startsWith('::ffff:') ? lower.slice('::ffff:'.length) : lower;
  const parts = v4.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

/**
 * Who may read /metrics: the admin token from anywhere (a Prometheus on another machine, with
 * --allow-remote), or without it a loopback peer that also names a loopback Host (a web page that
 * rebinds its own name to 127.0.0.1 sends its own name as Host, and is refused). Anyone else's token is
 * checked by the admin token guard: a wrong one counts against the address like one sent to the admin API.
 */
export function mayReadMetrics(req: IncomingMessage, guard: AdminTokenGuard): boolean {
  // The loopback rule needs no token, so a token sent along is not a guess worth counting.
  if (isLoopbackPeer(req.socket.remoteAddress) && isLoopbackHostHeader(req.headers.host)) return true;
  const token = bearerToken(req.headers.authorization);
  try {
    return guard.verify(req, token, '/metrics');
  } catch (error) {
    // A blocked address gets its 429; a wrong token the 403 every refusal here gets.
    if (error instanceof AdminTokenThrottled) throw error;
    return false;
  }
}

/** GET /metrics (CONTRACT): Prometheus text, or 403 in the contract's error shape. */
/** `extra`: further Prometheus text from outside the gateway (the request log's queue), appended to each scrape. */
export function createMetricsHandler(metrics: GatewayMetrics, guard: AdminTokenGuard, extra?: () => string) {
  return async function handleMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, errorBody('invalid_request_error', 'Use GET for /metrics'), { allow: 'GET, HEAD' });
    }
    let allowed: boolean;
    try {
      allowed = mayReadMetrics(req, guard);
    } catch (error) {
      const throttled = error as AdminTokenThrottled;
      return sendJson(res, throttled.status, throttled.toBody(), throttled.headers);
    }
    if (!allowed) {
      return sendJson(res, 403, errorBody('permission_error', '/metrics answers only to loopback clients, or to others with the admin token (Authorization: Bearer <admin token>)'));
    }
    const text = extra ? `${await metrics.render()}\n${extra()}` : await metrics.render();
    res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}
