// LISTEN on the changes channel: every instance hears, within moments, that keys, routes, limits or settings
// were changed by any writer (the triggers of schema.ts NOTIFY on commit). The connection is reopened after
// PostgreSQL comes back, and then everything is reloaded: what changed while it was away was not heard.
import pg from 'pg';
import { CHANGE_TOPICS, CHANGES_CHANNEL, type ChangeTopic } from './schema.js';

const RECONNECT_MS = 500;

export class ChangeFeed {
  private client: pg.Client | null = null;
  private readonly listeners = new Set<(topic: ChangeTopic) => void>();
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  /** Whether the LISTEN connection is up now. */
  connected = false;

  constructor(private readonly url: string) {}

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
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    this.connected = false;
    if (client) void client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 3_000, keepAlive: true, application_name: 'gatehouse-listen' });
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
