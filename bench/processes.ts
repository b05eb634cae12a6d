// The benchmark's servers, each in its own process so none shares an event loop with the load
// generator: the upstream double, the bare proxy and Gatehouse (its CLI bundled from the current
// sources with esbuild, as the built app would run it — no tsx loader in the measured process), and
// optionally Gatehouse as it was at an older commit, bundled the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

export const REPO_ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
/** Inside the package, so the bundle resolves node_modules and finds package.json above it. */
const BUNDLE_DIR = join(REPO_ROOT, 'node_modules', '.cache', `gatehouse-bench-${basename(REPO_ROOT)}`);

export interface Bundles {
  gatehouseCli: string;
  upstreamDouble: string;
  bareProxy: string;
}

/**
 * One set of options for the current and the reference bundles, so the two builds differ only in their
 * sources. Split at dynamic imports, as electron-vite's build of the app is: a module loaded on demand
 * (the MCP gateway) loads its packages then, not at start.
 */
const NODE_BUNDLE: BuildOptions = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'error',
};

export async function bundleServers(): Promise<Bundles> {
  await build({
    ...NODE_BUNDLE,
    entryPoints: {
      cli: join(REPO_ROOT, 'src-main/cli.ts'),
      'upstream-double': join(REPO_ROOT, 'bench/upstream-double.ts'),
      'bare-proxy': join(REPO_ROOT, 'bench/bare-proxy.ts'),
    },
    outdir: BUNDLE_DIR,
  });
  return {
    gatehouseCli: join(BUNDLE_DIR, 'cli.mjs'),
    upstreamDouble: join(BUNDLE_DIR, 'upstream-double.mjs'),
    bareProxy: join(BUNDLE_DIR, 'bare-proxy.mjs'),
  };
}

/**
 * Gatehouse's CLI at a git ref, bundled as bundleServers() bundles the current one, so a run can measure
 * today's sources against an older commit on the same machine at the same time. The sources come from
 * `git archive` (the working tree, which others may be editing, is not touched) and sit inside
 * node_modules, so the bundle's package imports resolve to the current node_modules. Kept per commit.
 */
export async function bundleReference(ref: string): Promise<{ cli: string; sha: string }> {
  const sha = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const dir = join(REPO_ROOT, 'node_modules', '.cache', `gatehouse-bench-ref-${sha}`);
  const cli = join(dir, 'cli.mjs');
  if (existsSync(cli)) return { cli, sha };
  const sources = join(dir, 'src');
  // A half-extracted tree from an interrupted run would mix in stale files.
  rmSync(sources, { recursive: true, force: true });
  mkdirSync(sources, { recursive: true });
  const archive = execFileSync('git', ['archive', sha, 'src-main', 'package.json'], { cwd: REPO_ROOT, maxBuffer: 1024 ** 3 });
  execFileSync('tar', ['-x', '-C', sources], { input: archive });
  await build({ ...NODE_BUNDLE, entryPoints: { cli: join(sources, 'src-main/cli.ts') }, outdir: dir });
  return { cli, sha };
}

export interface ServerProcess {
  name: string;
  port: number;
  pid: number;
  /** Resident set size now, in bytes. */
  rss(): number;
  /** CPU time used so far (user + system), in ms: unlike requests/s, barely moved by other load on the machine. */
  cpuMs(): number;
  /** CPU time of the main thread alone (the one serving requests), in ms; NaN where /proc is missing. */
  mainThreadCpuMs(): number;
  /** SIGTERM, then wait for the exit (Gatehouse flushes its log and closes the database first). */
  stop(): Promise<number | null>;
}

const READY_LINE = /listening (?:on https?:\/\/[^\s]*:)?(\d+)/;

export function startServer(name: string, script: string, options: { args?: string[]; env?: NodeJS.ProcessEnv; nodeOptions?: string[] } = {}): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeOptions ?? []), script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = READY_LINE.exec(stdout);
      if (!match) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve({
        name,
        port: Number(match[1]),
        pid: child.pid!,
        rss: () => processRss(child.pid!),
        cpuMs: () => processCpuMs(child.pid!),
        mainThreadCpuMs: () => processCpuMs(child.pid!, child.pid!),
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`${name} exited (code ${code}) before it was ready:\n${stderr}`)));
  });
}

/** RSS of another process: /proc on Linux, `ps` elsewhere. */
export function processRss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    if (match) return Number(match[1]) * 1024;
  } catch {
    // Not Linux: fall through.
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) * 1024;
}

/**
 * CPU time of another process from /proc (Linux), or of one of its threads (the main thread's id is the
 * process id); NaN elsewhere, and the report leaves it out.
 */
export function processCpuMs(pid: number, threadId?: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(threadId === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${threadId}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * CPU time of every process whose command name starts with `name` (`redis-server`, `postgres` with its
 * backends), from /proc; NaN where there is no /proc. For engines the bench started and no one else uses.
 */
export function processesCpuMs(name: string): number {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc');
  } catch {
    return NaN;
  }
  let total = 0;
  for (const pid of dirs) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** USER_HZ: 100 on every Linux build Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Samples a process's RSS until stopped; returns the peak. */
export function sampleRss(server: ServerProcess, everyMs = 200): { stop(): number } {
  let peak = server.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, server.rss());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, server.rss());
    },
  };
}
