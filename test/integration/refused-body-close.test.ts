// A refused request whose body the gateway never wanted is still read (up to the drain limit) before
// the connection closes, whatever the client's `Connection` header: a client that sends its whole body
// before it reads (Node's http, curl, most SDKs) reads its refusal instead of EPIPE / ECONNRESET.
//
// The clients run in a process of their own: in the gateway's own event loop the client reads each
// answer before the server gets round to closing, and the hazard never shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import type { OutgoingHttpHeaders } from 'node:http';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gateway: TestGateway;
let port: number;

beforeAll(async () => {
  gateway = await startGateway();
  port = Number(new URL(gateway.baseUrl).port);
});
afterAll(async () => {
  await gateway.close();
});

const MIB = 1024 * 1024;

/** `tries` one-shot clients in turn: each its own connection (`agent: false`), `Connection: close`, the whole body sent at once. */
const CLIENT = `
import { request } from 'node:http';
const [port, path, headersJson, size, tries] = process.argv.slice(1);
const body = Buffer.alloc(Number(size), 0x20);
const headers = { ...JSON.parse(headersJson), connection: 'close', 'content-length': body.length };
const one = () => new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port: Number(port), path, method: 'POST', agent: false, headers }, (res) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => {
      let message = null;
      try { message = JSON.parse(Buffer.concat(chunks).toString('utf8')).error.message; } catch {}
      resolve({ status: res.statusCode, message });
    });
    res.on('error', (error) => resolve({ status: error.code ?? error.message, message: null }));
  });
  req.on('error', (error) => resolve({ status: error.code ?? error.message, message: null }));
  req.end(body);
});
const replies = [];
for (let i = 0; i < Number(tries); i++) replies.push(await one());
process.stdout.write(JSON.stringify(replies));
`;

function oneShotClients(path: string, headers: OutgoingHttpHeaders, size: number, tries: number): Promise<Array<{ status: number | string; message: string | null }>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', CLIENT, String(port), path, JSON.stringify(headers), String(size), String(tries)], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

const json = { 'content-type': 'application/json' };
const keyed = { ...json, 'x-gateway-api-key': 'gh-test-gateway-key-0123456789', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-x' };

describe('a refused body on a connection the client closes', () => {
  it('a body over 10 MiB: 20 one-shot clients with Connection: close each read their 413', async () => {
    const replies = await oneShotClients('/v1/chat/completions', keyed, 11 * MIB, 20);
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(413));
    for (const reply of replies) expect(reply.message).toContain('larger than the limit');
  });

  it('every refusal that leaves a body unread is read before the close: 401, 403 origin, 404, admin 401', async () => {
    const cases: Array<[string, string, OutgoingHttpHeaders, number]> = [
      ['wrong gateway key', '/v1/chat/completions', { ...json, 'x-gateway-api-key': 'gh-wrong-key-0123456789', 'x-gateway-provider': 'openai' }, 401],
      ['foreign origin', '/v1/chat/completions', { ...keyed, origin: 'https://evil.example' }, 403],
      ['unknown path', '/v1/no-such-path', keyed, 404],
      ['admin API without its token', '/admin/api/virtual-keys', json, 401],
    ];
    for (const [what, path, headers, status] of cases) {
      const replies = await oneShotClients(path, headers, 4 * MIB, 6);
      expect({ what, statuses: replies.map((reply) => reply.status) }).toEqual({ what, statuses: Array(6).fill(status) });
      for (const reply of replies) expect(reply.message).toBeTruthy();
    }
  });
});
