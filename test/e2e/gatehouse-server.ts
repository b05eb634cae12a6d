// Starts the real `gatehouse serve` (the built CLI) on a free port with a fresh data dir, the way
// a person would, and reads the UI address it prints and the admin token from the file it names.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');

export interface ServedGatehouse {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The UI's link with the admin token: `<origin>/#token=<admin token>` (serve prints only where the token is kept). */
  uiUrl: string;
  adminToken: string;
  dataDir: string;
  /** Calls the admin API with the admin token. */
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the server but keeps its data dir, as when someone quits it for a while. */
  halt(): Promise<void>;
  /** Starts it again after halt(), on the same port with the same data (and admin token). */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`gatehouse serve did not print ${pattern} within ${timeoutMs} ms. Output:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = output.match(pattern);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolvePromise(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gatehouse serve exited with ${code} before it was ready. Output:\n${output}`));
    });
  });
}

function startServe(dataDir: string, port: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [join(root, 'bin', 'gatehouse.js'), 'serve', '--port', port, '--data-dir', dataDir], {
    cwd: root,
    // HOME points into the temp dir so nothing of the person running the tests is read or written.
    env: { ...process.env, HOME: dataDir, GATEHOUSE_ADMIN_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function halted(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
  child.kill('SIGTERM');
  await exited;
}

export async function serveGatehouse(env: Record<string, string> = {}): Promise<ServedGatehouse> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
  let child = startServe(dataDir, '0', env);
  let ready: RegExpMatchArray;
  try {
    ready = await waitForLine(child, /Open the UI: (http:\/\/[^/\s]+)\/\nAdmin token: (?:kept in (\S+) \(|the value of GATEHOUSE_ADMIN_TOKEN)/, 20_000);
  } catch (error) {
    // A server that never became ready must not outlive the test run.
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const [, origin, tokenFile] = ready;
  const adminToken = tokenFile !== undefined ? readFileSync(tokenFile, 'utf8').trim() : (env.GATEHOUSE_ADMIN_TOKEN ?? '');
  const uiUrl = `${origin}/#token=${adminToken}`;
  return {
    origin,
    uiUrl,
    adminToken,
    dataDir,
    admin: (path, init = {}) =>
      fetch(`${origin}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
      }),
    halt: () => halted(child),
    resume: async () => {
      child = startServe(dataDir, new URL(origin).port, env);
      await waitForLine(child, /Open the UI: /, 20_000);
    },
    stop: async () => {
      await halted(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
