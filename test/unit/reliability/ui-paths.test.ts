// The UI's static files: any path, malformed escapes and climbs out of the folder included, gets the UI,
// a 4xx in the contract shape or a file from inside the folder, never a 5xx or a file from elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGatewayServer } from '../../../src-main/gateway/server.js';

let root: string;
let server: Server;
let port: number;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gatehouse-ui-'));
  const uiDir = join(root, 'renderer');
  mkdirSync(join(uiDir, 'assets'), { recursive: true });
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>Gatehouse</title>');
  writeFileSync(join(uiDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, 'secret.txt'), 'outside the UI folder');
  server = createGatewayServer({
    keys: { resolve: () => undefined },
    log: () => undefined,
    maxBodyBytes: 1024,
    handleAdmin: async (_req, res) => {
      res.writeHead(404).end();
    },
    uiDir,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

function get(path: string, host = `127.0.0.1:${port}`): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('UI paths', () => {
  it('serves the UI and its assets', async () => {
    expect((await get('/')).text).toContain('<title>Gatehouse</title>');
    expect((await get('/assets/app.js')).text).toBe('console.log(1)');
  });

  it('answers only on a loopback Host (DNS rebinding)', async () => {
    for (const host of ['evil.com', `127.0.0.1.evil.com:${port}`, `localhost.evil.com:${port}`]) {
      const reply = await get('/', host);
      expect(reply.status, host).toBe(403);
      expect(reply.text).not.toContain('<title>');
    }
    expect((await get('/', `localhost:${port}`)).status).toBe(200);
  });

  it('answers a malformed escape with 400 in the contract shape', async () => {
    const reply = await get('/%zz');
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text).error.type).toBe('invalid_request_error');
  });

  it('any path: never a 5xx, never a file from outside the UI folder', async () => {
    const piece = fc.constantFrom('..', '%2e%2e', '%2E%2e', '%2f', '%5c', '\\\\', 'secret.txt', 'assets', 'app.js', '%zz', '%', '%00', 'x.css', '.', 'index.html');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 6 }), async (pieces) => {
        const reply = await get(`/${pieces.join('/')}`);
        expect(reply.status).toBeLessThan(500);
        expect(reply.text).not.toContain('outside the UI folder');
      }),
      { numRuns: 300 },
    );
  });
});
