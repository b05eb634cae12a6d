// The app's memory of local model servers: a sweep on start, one every few minutes, one on demand.
// A server that stops answering stays listed as offline (with what it last said) until its port is
// no longer probed; a sweep never runs twice at once.
import { discoverLocalServers, DEFAULT_PROBE_TIMEOUT_MS } from './probe.js';
import { LOCAL_SERVER_KINDS, type DiscoveredServer, type LocalServer, type LocalServerList } from './types.js';

/** Often enough to notice a server started a minute ago, rarely enough to cost nothing. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 3 * 60_000;

export interface DiscoveryServiceOptions {
  /** The ports to probe, read at each sweep (Settings may have changed). */
  ports(): number[];
  timeoutMs?: number;
  intervalMs?: number;
  /** Stands in for the real probe in tests. */
  discover?: (ports: number[], timeoutMs: number, signal: AbortSignal) => Promise<DiscoveredServer[]>;
  now?: () => number;
  log?: (line: string) => void;
}

export class DiscoveryService {
  private readonly known = new Map<string, LocalServer>();
  private checkedAt: number | null = null;
  /** The ports of the last finished sweep, comma-joined. */
  private sweptPorts: string | undefined;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly stopped = new AbortController();

  constructor(private readonly options: DiscoveryServiceOptions) {}

  /** The first sweep now (in the background) and then one every interval. */
  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.intervalMs ?? DEFAULT_DISCOVERY_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.stopped.abort();
  }

  list(): LocalServerList {
    const ports = this.options.ports();
    // Ports changed since the last sweep (Settings): sweep again, and say so, rather than show a stale list.
    if (this.sweptPorts !== undefined && this.running === undefined && !this.stopped.signal.aborted && ports.join(',') !== this.sweptPorts) void this.refresh();
    // Online first, then by kind (Ollama, LM Studio, ...) and port: a stable order from sweep to sweep.
    const items = [...this.known.values()].sort(
      (a, b) => Number(b.online) - Number(a.online) || LOCAL_SERVER_KINDS.indexOf(a.kind) - LOCAL_SERVER_KINDS.indexOf(b.kind) || a.port - b.port || a.url.localeCompare(b.url),
    );
    return { items: items.map((server) => structuredClone(server)), checkedAt: this.checkedAt === null ? null : new Date(this.checkedAt).toISOString(), refreshing: this.running !== undefined, ports };
  }

  /** Sweeps now, or joins the sweep already running; resolves when it is done. */
  refresh(): Promise<LocalServerList> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running.then(() => this.list());
  }

  private async sweep(): Promise<void> {
    if (this.stopped.signal.aborted) return;
    const now = this.options.now ?? Date.now;
    const ports = this.options.ports();
    this.sweptPorts = ports.join(',');
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    let found: DiscoveredServer[];
    try {
      found = await (this.options.discover ?? ((p, t, signal) => discoverLocalServers({ ports: p, timeoutMs: t, signal })))(ports, timeoutMs, this.stopped.signal);
    } catch (error) {
      this.options.log?.(`Local server discovery failed: ${(error as Error).message}`);
      return;
    }
    if (this.stopped.signal.aborted) return;
    const seenAt = new Date(now()).toISOString();
    const answered = new Set<string>();
    for (const server of found) {
      answered.add(server.url);
      this.known.set(server.url, { ...server, online: true, lastSeen: seenAt });
    }
    const probed = new Set(ports);
    for (const [url, server] of this.known) {
      // A port taken off the list is forgotten; one that went quiet is kept, offline.
      if (!probed.has(server.port)) this.known.delete(url);
      else if (!answered.has(url)) server.online = false;
    }
    this.checkedAt = now();
  }
}
