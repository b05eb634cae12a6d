// LISTEN on the changes channel: every instance hears, within moments, that keys, routes, limits or settings
// were changed by any writer (the triggers of schema.ts NOTIFY on commit). The connection is reopened after
// PostgreSQL comes back, and then everything is reloaded: what changed while it was away was not heard.
// A connection can also die without closing (the server vanished behind its address, a failover): nothing
// then says so for hours, and a key revoked elsewhere would keep working here. So the connection is asked
// a question every second, and one left unanswered for a few seconds counts as lost.
import pg from 'pg';
import { CHANGE_TOPICS, CHANGES_CHANNEL, type ChangeTopic } from './schema.js';

const RECONNECT_MS = 500;
const PING_EVERY_MS = 1_000;
const ANSWER_WITHIN_MS = 3_000;

export class ChangeFeed {
  private client: pg.Client | null = null;
  private readonly listeners = new Set<(topic: ChangeTopic) => void>();
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly pinger: NodeJS.Timeout;
  private pinging = false;
  /** Whether the LISTEN connection is up now. */
  connected = false;

  constructor(private readonly url: string) {
    this.pinger = setInterval(() => this.ping(), PING_EVERY_MS);
    this.pinger.unref();
  }

  /** Resolves once listening (the first time); later reconnects happen in the background. */
  async start(): Promise<void> {
    await this.connect();
  }

  on(listener: (topic: ChangeTopic) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.pinger);
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    this.connected = false;
    if (client) void client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 3_000, keepAlive: true, query_timeout: ANSWER_WITHIN_MS, application_name: 'gatehouse-listen' });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const topic = message.payload as ChangeTopic;
      if ((CHANGE_TOPICS as readonly string[]).includes(topic)) this.tell(topic);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    if (this.stopped) {
      void client.end().catch(() => undefined);
      return;
    }
    const wasLost = this.client === null && this.everConnected;
    this.client = client;
    this.connected = true;
    this.everConnected = true;
    if (wasLost) for (const topic of CHANGE_TOPICS) this.tell(topic);
  }

  private everConnected = false;

  /** One question at a time; unanswered within ANSWER_WITHIN_MS (the client's query_timeout), the connection is lost. */
  private ping(): void {
    const client = this.client;
    if (!client || this.pinging) return;
    this.pinging = true;
    client
      .query('SELECT 1')
      .catch(() => this.lost(client))
      .finally(() => {
        this.pinging = false;
      });
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.connected = false;
    void client.end().catch(() => undefined);
    this.retry();
  }

  private retry(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().catch(() => this.retry());
    }, RECONNECT_MS);
    this.timer.unref();
  }

  private tell(topic: ChangeTopic): void {
    for (const listener of this.listeners) {
      try {
        listener(topic);
      } catch (error) {
        console.error(`Gatehouse: applying a change from PostgreSQL failed: ${(error as Error).message}`);
      }
    }
  }
}
