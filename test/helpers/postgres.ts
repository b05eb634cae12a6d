// A private PostgreSQL cluster for tests: initdb into a temp dir owned by the `postgres` user (PostgreSQL
// refuses to run as root), pg_ctl on a free loopback port, and a database owned by a non-superuser role,
// as an operator would give Gatehouse. Or, with GATEHOUSE_TEST_DATABASE_URL set, that server instead.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATIONS } from '../../src-main/store-postgres/schema.js';

const BIN_DIR = process.env.GATEHOUSE_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const ROLE = 'gatehouse';
const PASSWORD = 'gatehouse-test';

export interface TestPostgres {
  /** A URL for a role that owns `database` and is not a superuser. */
  url: string;
  /** A fresh, empty database owned by the same role: its URL. */
  newDatabase(): Promise<string>;
  /** Stops the server (connections fail until start()); for outage tests. Not available on an outside server. */
  stopServer(): void;
  startServer(): void;
  /**
   * Freezes the server (SIGSTOP to it and its backends): connections stay open and nothing answers, as
   * when the network to it drops packets. resumeServer() lets it go on. Not available on an outside server.
   */
  pauseServer(): void;
  resumeServer(): void;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const asPostgres = (command: string, args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', join(BIN_DIR, command), ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });

let databases = 0;

/** One connection to `url` for `work`, closed after it. */
/** Sets an empty database up as a Gatehouse of schema version `version` left it (for upgrade tests). */
export async function migrateUpTo(client: pg.Client, version: number): Promise<void> {
  await client.query('CREATE TABLE gatehouse_schema (version int PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const migration of MIGRATIONS.filter((each) => each.version <= version)) {
    await client.query(migration.sql);
    await client.query('INSERT INTO gatehouse_schema (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
  }
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const outside = process.env.GATEHOUSE_TEST_DATABASE_URL;
  if (outside) {
    // An outside server: each database is a fresh schema-less database only if the role may create them.
    return {
      url: outside,
      newDatabase: async () => {
        const name = `gatehouse_test_${process.pid}_${++databases}`;
        await withClient(outside, (client) => client.query(`CREATE DATABASE ${name}`));
        const url = new URL(outside);
        url.pathname = `/${name}`;
        return url.toString();
      },
      stopServer: () => {
        throw new Error('Cannot stop an outside PostgreSQL (GATEHOUSE_TEST_DATABASE_URL)');
      },
      startServer: () => {
        throw new Error('Cannot start an outside PostgreSQL (GATEHOUSE_TEST_DATABASE_URL)');
      },
      pauseServer: () => {
        throw new Error('Cannot pause an outside PostgreSQL (GATEHOUSE_TEST_DATABASE_URL)');
      },
      resumeServer: () => {
        throw new Error('Cannot resume an outside PostgreSQL (GATEHOUSE_TEST_DATABASE_URL)');
      },
      close: async () => undefined,
    };
  }
  if (!existsSync(join(BIN_DIR, 'initdb'))) throw new Error(`PostgreSQL is not installed (${BIN_DIR}/initdb); .ci/run installs it`);
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  const data = join(dir, 'data');
  // The postgres user owns the folder; 0700 as initdb wants. /tmp itself lets it through.
  chownSync(dir, 101, 104);
  execFileSync('chown', ['postgres:postgres', dir]);
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB`;
  const start = () => asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  start();
  const superUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await withClient(superUrl, async (client) => {
    await client.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD}' NOSUPERUSER NOCREATEROLE CREATEDB`);
    await client.query(`CREATE DATABASE gatehouse OWNER ${ROLE}`);
  });
  const urlOf = (database: string) => `postgres://${ROLE}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  let stopped = false;
  let paused = false;
  // The postmaster first, so that it starts no backend meanwhile; on resume, the backends first.
  const serverProcesses = () => {
    const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0].trim();
    const backends = spawnSync('pgrep', ['-P', postmaster], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    return [postmaster, ...backends];
  };
  const signal = (name: string, pids: string[]) => execFileSync('kill', [`-${name}`, ...pids]);
  return {
    url: urlOf('gatehouse'),
    newDatabase: async () => {
      const name = `gatehouse_${++databases}`;
      await withClient(superUrl, (client) => client.query(`CREATE DATABASE ${name} OWNER ${ROLE}`));
      return urlOf(name);
    },
    stopServer: () => {
      asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      stopped = true;
    },
    startServer: () => {
      start();
      stopped = false;
    },
    pauseServer: () => {
      signal('STOP', serverProcesses());
      paused = true;
    },
    resumeServer: () => {
      signal('CONT', serverProcesses().reverse());
      paused = false;
    },
    close: async () => {
      try {
        if (paused) signal('CONT', serverProcesses().reverse());
        if (!stopped) asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
