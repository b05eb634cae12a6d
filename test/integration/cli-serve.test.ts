// `gatehouse serve` as a user runs it (CONTRACT §1): the ready line, --port 0, loopback only,
// and a graceful stop on SIGTERM that flushes the log and exits 0.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startOpenAIFake } from '../fakes/openai.js';

const CLI = ['--import', 'tsx', 'src-main/cli.ts'];
const children: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
  dirs.push(dir);
  return dir;
}

function runServe(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...CLI, 'serve', ...args], {
    env: { ...process.env, GATEWAY_API_KEY: 'cli-test-key', GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'), ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': by then stdout and stderr have been read to the end.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /Gatehouse listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', check);
    exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  // Tests that expect a refusal never await `ready`; its rejection is expected there.
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('gatehouse serve', () => {
  it('prints the ready line with the real port for --port 0, and where the admin token is kept, never its value', async () => {
    const dataDir = tempDir();
    const serve = runServe(['--port', '0', '--data-dir', dataDir]);
    const url = await serve.ready;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const tokenFile = join(dataDir, 'admin-token');
    const token = readFileSync(tokenFile, 'utf8').trim();
    // stdout is a pipe here (as under systemd or in a container): the generated token stays out of it.
    expect(serve.output().stdout).toBe(`Gatehouse listening on ${url}\nOpen the UI: ${url}/\nAdmin token: kept in ${tokenFile} (to show it: cat ${tokenFile})\n`);
    expect(serve.output().stdout + serve.output().stderr).not.toContain(token);
    const health = await fetch(`${url}/admin/api/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(await health.json()).toMatchObject({ ok: true });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

    // Started again, the token comes from the file: still only where it is kept.
    serve.child.kill('SIGTERM');
    await serve.exited;
    const again = runServe(['--port', '0', '--data-dir', dataDir]);
    await again.ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(again.output().stdout).toContain(`Admin token: kept in ${tokenFile}`);
    expect(again.output().stdout + again.output().stderr).not.toContain(token);
  });

  it('never prints a token given in GATEHOUSE_ADMIN_TOKEN', async () => {
    const token = randomBytes(32).toString('base64url');
    const serve = runServe(['--port', '0', '--data-dir', tempDir()], { GATEHOUSE_ADMIN_TOKEN: token });
    const url = await serve.ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(serve.output().stdout).toBe(`Gatehouse listening on ${url}\nOpen the UI: ${url}/\nAdmin token: the value of GATEHOUSE_ADMIN_TOKEN this server was started with\n`);
    expect(serve.output().stderr).not.toContain(token);
  });

  it('refuses to start with --allow-remote on a guessable admin token, saying what to do (more cases: admin-surface.test.ts)', async () => {
    const serve = runServe(['--port', '0', '--data-dir', tempDir(), '--allow-remote'], { GATEHOUSE_ADMIN_TOKEN: 'x' });
    expect(await serve.exited).toBe(1);
    expect(serve.output().stderr).toMatch(/Refusing to start with --allow-remote: the admin token in GATEHOUSE_ADMIN_TOKEN is too easy to guess \(about \d+ bits; at least 128/);
    expect(serve.output().stderr).toContain('openssl rand -base64 32');
  });

  it('takes host, port and data dir from the environment', async () => {
    const dataDir = tempDir();
    const serve = runServe([], { GATEHOUSE_PORT: '0', GATEHOUSE_HOST: '127.0.0.1', GATEHOUSE_DATA_DIR: dataDir });
    await serve.ready;
    expect(statSync(join(dataDir, 'gatehouse.db')).isFile()).toBe(true);
  });

  it('refuses a non-loopback host unless --allow-remote is given', async () => {
    const serve = runServe(['--host', '0.0.0.0', '--port', '0', '--data-dir', tempDir()]);
    expect(await serve.exited).toBe(1);
    expect(serve.output().stderr).toContain('--allow-remote');
  });

  it('stops on SIGTERM with exit code 0, after writing the log of the requests it served', async () => {
    const dataDir = tempDir();
    const fake = await startOpenAIFake();
    try {
      const serve = runServe(['--port', '0', '--data-dir', dataDir]);
      const url = await serve.ready;
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-api-key': 'cli-test-key', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-x' },
          body: JSON.stringify({ model: 'm', prompt: `p${i}` }),
        });
        expect(response.status).toBe(200);
      }
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
      const db = new Database(join(dataDir, 'gatehouse.db'), { readonly: true });
      expect((db.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n).toBe(5);
      db.close();
    } finally {
      await fake.close();
    }
  });

  it('a second Ctrl-C while it stops does not cut the stop short: the call in flight is answered and every row written', async () => {
    const dataDir = tempDir();
    const fake = await startOpenAIFake();
    try {
      const serve = runServe(['--port', '0', '--data-dir', dataDir]);
      const url = await serve.ready;
      const call = (prompt: string) =>
        fetch(`${url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-api-key': 'cli-test-key', 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-x' },
          body: JSON.stringify({ model: 'm', prompt }),
        });
      for (let i = 0; i < 3; i++) expect((await call(`p${i}`)).status).toBe(200);
      // The provider takes a second and a half over the last call: the stop waits for it.
      let received!: () => void;
      const providerHasIt = new Promise<void>((resolve) => (received = resolve));
      fake.enqueue(async (_request, res) => {
        received();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'cmpl-slow', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: 'slow', finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
      });
      const slow = call('slow');
      await providerHasIt;
      serve.child.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 200));
      serve.child.kill('SIGINT');
      expect((await slow).status).toBe(200);
      expect(await serve.exited).toBe(0);
      expect(serve.output().stderr).toContain('Gatehouse is stopping');
      const db = new Database(join(dataDir, 'gatehouse.db'), { readonly: true });
      expect((db.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n).toBe(4);
      db.close();
    } finally {
      await fake.close();
    }
  });

  it('says clearly when the port is taken', async () => {
    const first = runServe(['--port', '0', '--data-dir', tempDir()]);
    const port = new URL(await first.ready).port;
    const second = runServe(['--port', port, '--data-dir', tempDir()]);
    expect(await second.exited).toBe(1);
    expect(second.output().stderr).toContain(`Port ${port} is already in use`);
  });
});
