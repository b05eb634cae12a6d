// The one-shot loopback listener of `gatehouse mcp login` (RFC 8252 §7.3): 127.0.0.1 on a port of its own,
// open only while one sign-in waits, so the CLI signs in whether or not a Gatehouse server runs and needs
// no admin token. Each redirect is handed to the sign-in, which checks its `state`: a wrong one is
// answered 400 and ignored (the sign-in keeps waiting); the first right one ends the wait either way.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WrongStateError } from './sign-in.js';

export const CALLBACK_PATH = '/oauth/callback';

export class LoopbackCallback {
  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
  ) {}

  static async open(port = 0): Promise<LoopbackCallback> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return new LoopbackCallback(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`);
  }

  /** Waits for the sign-in's answer: `finish` takes each redirect's query; resolves with its result, bounded by `timeoutMs`. */
  wait<T>(finish: (query: URLSearchParams) => Promise<T>, timeoutMs: number, onIgnored: (reason: string) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No sign-in answer came within ${Math.round(timeoutMs / 1000)} s; run the command again to sign in`)), timeoutMs);
      const page = (status: number, text: string) => ({ status, body: `<!doctype html><meta charset="utf-8"><title>Gatehouse</title><p>${text}</p>` });
      this.server.on('request', (req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const answer = (reply: { status: number; body: string }) => res.writeHead(reply.status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(reply.body);
        if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) return answer(page(404, 'Not found.'));
        finish(url.searchParams).then(
          (result) => {
            answer(page(200, 'Signed in. You can close this tab and go back to Gatehouse.'));
            clearTimeout(timer);
            resolve(result);
          },
          (error: Error) => {
            if (error instanceof WrongStateError) {
              answer(page(400, error.message));
              onIgnored(error.message);
              return;
            }
            answer(page(400, 'The sign-in failed; the terminal says why.'));
            clearTimeout(timer);
            reject(error);
          },
        );
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
