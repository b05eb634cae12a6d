// Prometheus metrics for GET /metrics: counted from the same entry each finished call hands to the
// request log (app.ts wraps the log dependency), so the proxy does nothing extra for them. Each
// observation is a few map lookups and counter increments; label values are bounded so a client
// sending random model names cannot grow the series without limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics, type LabelValues } from 'prom-client';
import { errorBody } from './errors.js';
import { sendJson } from './proxy.js';
import { tokensMatch, isLoopbackHostHeader } from '../admin/router.js';
import type { LogEntryInput } from '../store/request-log.js';

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

type TokenKind = 'input' | 'output' | 'cached' | 'cache_write' | 'reasoning';

/** The bound children of every metric for one provider/model/key/route: built once, then only incremented. */
interface Series {
  labels: LabelValues<string>;
  requests: Map<string, Counter.Internal>;
  errors: Map<string, Counter.Internal>;
  latency: Histogram.Internal<string>;
  ttfb: Histogram.Internal<string>;
  cost: Counter.Internal;
  unpriced: Counter.Internal;
  tokens: Partial<Record<TokenKind, Counter.Internal>>;
}

/** Process metrics are per process: one registry for them, however many gateways a process runs (tests). */
let processRegistry: Registry | undefined;

function sharedProcessRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class GatewayMetrics {
  /** This gateway's own registry, never prom-client's global one (which other code in the process may fill). */
  readonly registry = new Registry();
  private readonly withProcessMetrics: boolean;
  private readonly keyName: (keyId: string) => string | undefined;
  private readonly hasEnvironmentKey: boolean;
  private readonly providers: BoundedLabel;
  private readonly models: BoundedLabel;
  private readonly keys: BoundedLabel;
  private readonly routes: BoundedLabel;
  private readonly series = new Map<string, Series>();
  private failureReported = false;

  private readonly requestsTotal: Counter<string>;
  private readonly errorsTotal: Counter<string>;
  private readonly latencySeconds: Histogram<string>;
  private readonly ttfbSeconds: Histogram<string>;
  private readonly tokensTotal: Counter<string>;
  private readonly costTotal: Counter<string>;
  private readonly unpricedTotal: Counter<string>;

  constructor(options: GatewayMetricsOptions) {
    const limits = { ...DEFAULT_METRICS_LIMITS, ...options.limits };
    this.keyName = options.keyName;
    this.hasEnvironmentKey = options.hasEnvironmentKey;
    this.withProcessMetrics = options.processMetrics ?? true;
    this.providers = new BoundedLabel(limits.providers, limits.valueLength);
    this.models = new BoundedLabel(limits.models, limits.valueLength);
    this.keys = new BoundedLabel(limits.keys, limits.valueLength);
    this.routes = new BoundedLabel(limits.routes, limits.valueLength);

    // `route` is declared but set only for calls that name one; series without it carry no route label.
    const base = ['provider', 'model', 'key', 'route'];
    const registers = [this.registry];
    this.requestsTotal = new Counter({ name: 'gatehouse_requests_total', help: 'Calls finished, by status class (2xx, 4xx, 5xx).', labelNames: [...base, 'status_class'], registers });
    this.errorsTotal = new Counter({
      name: 'gatehouse_errors_total',
      help: 'Calls that failed: an error status, or a stream cut by an error after it started; by status code.',
      labelNames: [...base, 'status'],
      registers,
    });
    this.latencySeconds = new Histogram({ name: 'gatehouse_request_duration_seconds', help: 'Time from the request to the last byte of the answer.', labelNames: base, buckets: LATENCY_BUCKETS, registers });
    this.ttfbSeconds = new Histogram({
      name: 'gatehouse_time_to_first_byte_seconds',
      help: 'Time from the request to the first byte of the answer sent to the client (calls that sent one).',
      labelNames: base,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tokensTotal = new Counter({
      name: 'gatehouse_tokens_total',
      help: 'Tokens by kind: input (all of them, cached included), output (reasoning included), cached (read from the prompt cache), cache_write, reasoning.',
      labelNames: [...base, 'kind'],
      registers,
    });
    this.costTotal = new Counter({ name: 'gatehouse_cost_usd_total', help: 'Spend in US dollars, from the model catalog; calls of unknown price are not in it.', labelNames: base, registers });
    this.unpricedTotal = new Counter({
      name: 'gatehouse_unpriced_requests_total',
      help: 'Calls that used tokens but whose price is unknown (model not in the catalog): their spend is missing from gatehouse_cost_usd_total.',
      labelNames: base,
      registers,
    });
  }

  /**
   * Counts one finished call. O(1): labels are resolved from memory, series are cached, and the tokens
   * and cost are the entry's (the proxy has read a relayed body's usage before handing the entry over).
   */
  observe(entry: LogEntryInput): void {
    try {
      this.count(entry);
    } catch (error) {
      // Metrics must never cost a call its log row (the wrapper appends it after this).
      if (!this.failureReported) console.error('Gatehouse: a call could not be counted for /metrics', error);
      this.failureReported = true;
    }
  }

  private count(entry: LogEntryInput): void {
    const series = this.seriesFor(entry);
    const statusClass = `${Math.floor(entry.status / 100)}xx`;
    let requests = series.requests.get(statusClass);
    if (!requests) {
      requests = this.requestsTotal.labels({ ...series.labels, status_class: statusClass });
      series.requests.set(statusClass, requests);
    }
    requests.inc();
    if (entry.status >= 400 || entry.error !== null) {
      const status = String(entry.status);
      let errors = series.errors.get(status);
      if (!errors) {
        errors = this.errorsTotal.labels({ ...series.labels, status });
        series.errors.set(status, errors);
      }
      errors.inc();
    }
    series.latency.observe(entry.latencyMs / 1000);
    if (entry.ttfbMs !== null) series.ttfb.observe(entry.ttfbMs / 1000);
    this.countUsage(series, entry);
  }

  /** Everything counted so far in Prometheus text format, with the process metrics after it. */
  async render(): Promise<string> {
    const own = await this.registry.metrics();
    return this.withProcessMetrics ? `${own}\n${await sharedProcessRegistry().metrics()}` : own;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private seriesFor(entry: LogEntryInput): Series {
    const provider = entry.provider === null ? UNKNOWN_LABEL : this.providers.value(entry.provider);
    const model = entry.model === null ? UNKNOWN_LABEL : this.models.value(entry.model);
    const key = this.keys.value(this.keyLabel(entry));
    // Routing rules (another branch) may name the route a call took; today no entry has one.
    const routeName = (entry as { route?: unknown }).route;
    const route = typeof routeName === 'string' && routeName !== '' ? this.routes.value(routeName) : undefined;
    const id = route === undefined ? `${provider}\u0000${model}\u0000${key}` : `${provider}\u0000${model}\u0000${key}\u0000${route}`;
    let series = this.series.get(id);
    if (!series) {
      const labels: LabelValues<string> = route === undefined ? { provider, model, key } : { provider, model, key, route };
      series = {
        labels,
        requests: new Map(),
        errors: new Map(),
        latency: this.latencySeconds.labels(labels),
        ttfb: this.ttfbSeconds.labels(labels),
        cost: this.costTotal.labels(labels),
        unpriced: this.unpricedTotal.labels(labels),
        tokens: {},
      };
      this.series.set(id, series);
    }
    return series;
  }

  private keyLabel(entry: LogEntryInput): string {
    if (entry.keyId !== null) return this.keyName(entry.keyId) ?? entry.keyId;
    // No key id: the environment key, unless no key was accepted at all (401), or there is none.
    return this.hasEnvironmentKey && entry.status !== 401 ? ENVIRONMENT_KEY_LABEL : NO_KEY_LABEL;
  }

  private countUsage(series: Series, entry: LogEntryInput): void {
    this.countTokens(series, 'input', entry.promptTokens);
    this.countTokens(series, 'output', entry.completionTokens);
    this.countTokens(series, 'cached', entry.cacheReadTokens);
    this.countTokens(series, 'cache_write', entry.cacheWriteTokens);
    this.countTokens(series, 'reasoning', entry.reasoningTokens);
    // The catalog's price; null: the model is not in it (undefined: an entry made without pricing).
    const cost = entry.costUsd;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) series.cost.inc(cost);
    else if (cost === null && ((entry.promptTokens ?? 0) > 0 || (entry.completionTokens ?? 0) > 0)) series.unpriced.inc();
  }

  private countTokens(series: Series, kind: TokenKind, count: number | null | undefined): void {
    if (typeof count !== 'number' || !(count > 0)) return;
    let counter = series.tokens[kind];
    if (!counter) counter = series.tokens[kind] = this.tokensTotal.labels({ ...series.labels, kind });
    counter.inc(count);
  }
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
 * rebinds its own name to 127.0.0.1 sends its own name as Host, and is refused).
 */
export function mayReadMetrics(peerAddress: string | undefined, hostHeader: string | undefined, authorization: string | undefined, adminToken: string): boolean {
  const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1];
  if (token !== undefined && tokensMatch(token.trim(), adminToken)) return true;
  return isLoopbackPeer(peerAddress) && isLoopbackHostHeader(hostHeader);
}

/** GET /metrics (CONTRACT): Prometheus text, or 403 in the contract's error shape. */
export function createMetricsHandler(metrics: GatewayMetrics, adminToken: string) {
  return async function handleMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, errorBody('invalid_request_error', 'Use GET for /metrics'), { allow: 'GET, HEAD' });
    }
    if (!mayReadMetrics(req.socket.remoteAddress, req.headers.host, req.headers.authorization, adminToken)) {
      return sendJson(res, 403, errorBody('permission_error', '/metrics answers only to loopback clients, or to others with the admin token (Authorization: Bearer <admin token>)'));
    }
    const text = await metrics.render();
    res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}
