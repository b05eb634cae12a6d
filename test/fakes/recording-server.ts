// A loopback HTTP server for provider test doubles: records every request (URL, headers, body) and
// answers with scripted behaviours, falling back to the double's default answer.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: Record<string, unknown>;
}

export type Behaviour<R extends RecordedRequest = RecordedRequest> = (request: R, res: ServerResponse) => void | Promise<void>;

export interface RecordingServer<R extends RecordedRequest = RecordedRequest> {
  origin: string;
  requests: R[];
  /** Answers the next request(s) with these behaviours, in order; then the default answer again. */
  enqueue(...behaviours: Behaviour<R>[]): void;
  /** Open sockets, for tests that check aborts reach the provider. */
  openConnections(): number;
  close(): Promise<void>;
}

export interface RecordingOptions<R extends RecordedRequest> {
  /** Adds the double's own fields (route parts, parsed auth) to what is recorded. */
  describe?: (request: RecordedRequest) => R;
  /** The checks the real service makes before anything else; returns true when it answered itself. */
  gate?: (request: R, res: ServerResponse) => boolean;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startRecordingServer<R extends RecordedRequest = RecordedRequest>(
  defaultBehaviour: Behaviour<R>,
  options: RecordingOptions<R> = {},
): Promise<RecordingServer<R>> {
  const requests: R[] = [];
  const queue: Behaviour<R>[] = [];
  const sockets = new Set<Socket>();
  const describe = options.describe ?? ((request: RecordedRequest) => request as R);
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      // Recorded as is; the test decides whether that matters.
    }
    const request = describe({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json });
    requests.push(request);
    if (options.gate?.(request, res)) return;
    try {
      await (queue.shift() ?? defaultBehaviour)(request, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    enqueue: (...behaviours) => queue.push(...behaviours),
    openConnections: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Writes SSE events one network write at a time, with a pause, as a real provider streams them. */
export async function writeSseEvents(res: ServerResponse, events: { event?: string; data: unknown }[], headers: Record<string, string> = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  for (const { event, data } of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}
