// Key names are unique in team mode as on the desktop, also for databases and data dirs made before they
// were: schema version 5 renames an older twin 'name (2)' instead of failing to start, and so does
// `gatehouse migrate` for a data dir with twins. The newest keeps the name (the key a route naming it reached).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src-main/store-postgres/schema.js';
import { openDatabase } from '../../src-main/store/database.js';
import { runMigrateCommand } from '../../src-main/cli/migrate.js';
import { startGateway, TEST_MASTER_KEY } from '../helpers/gateway.js';
import { migrateUpTo, startPostgres, withClient, type TestPostgres } from '../helpers/postgres.js';

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.close();
}, 30_000);

const names = (client: pg.Client, table: string) => client.query<{ id: string; name: string }>(`SELECT id, name FROM ${table} ORDER BY id`).then((result) => Object.fromEntries(result.rows.map((row) => [row.id, row.name])));

describe('unique key names on a team database from before them', () => {
  it('schema version 5 renames older active twins (either kind, case aside) to the next free name, and the database then refuses a twin itself', async () => {
    const url = await postgres.newDatabase();
    await withClient(url, async (client) => {
      // The database as a Gatehouse of schema version 4 left it.
      await migrateUpTo(client, 4);
      const virtual = (id: string, name: string, at: number, revoked: number | null = null) =>
        client.query("INSERT INTO virtual_keys (id, name, provider, key_hash, key_prefix, settings, created_at, updated_at, revoked_at) VALUES ($1, $2, 'openai', $3, 'gh-vk-x', '{}', $4, $4, $5)", [id, name, randomBytes(32), at, revoked]);
      const gateway = (id: string, name: string, at: number) => client.query("INSERT INTO gateway_keys (id, name, key_hash, key_prefix, created_at, updated_at) VALUES ($1, $2, $3, 'gh-gk-x', $4, $4)", [id, name, randomBytes(32), at]);
      await virtual('vk_oldest', 'Work', 1_000);
      await virtual('vk_older', 'work', 2_000);
      await gateway('gk_newest', 'WORK', 3_000);
      await virtual('vk_taken', 'Work (2)', 500);
      await virtual('vk_revoked', 'work', 4_000, 4_500);
      await virtual('vk_alone', 'Home', 1_000);
    });

    expect((await migrate(url)).applied).toEqual(MIGRATIONS.filter((m) => m.version > 4).map((m) => m.version));

    await withClient(url, async (client) => {
      // The newest keeps the name; the older ones take the next free number ('Work (2)' was taken).
      expect(await names(client, 'gateway_keys')).toEqual({ gk_newest: 'WORK' });
      expect(await names(client, 'virtual_keys')).toEqual({ vk_alone: 'Home', vk_older: 'work (3)', vk_oldest: 'Work (4)', vk_revoked: 'work', vk_taken: 'Work (2)' });
      // Written past the key store (psql), a twin within a kind is still refused by the database.
      await expect(client.query("INSERT INTO virtual_keys (id, name, provider, key_hash, key_prefix, settings, created_at, updated_at) VALUES ('vk_psql', 'HOME', 'openai', $1, 'gh-vk-x', '{}', 1, 1)", [randomBytes(32)])).rejects.toMatchObject({ code: '23P01' });
    });
  });

  it('gatehouse migrate copies a data dir with twins, renaming the older ones and saying so; chatOnly comes along', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-twins-'));
    try {
      const desktop = await startGateway({ dataDir });
      let older: { id: string; key: string };
      try {
        const created = await desktop.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'desk', provider: 'openai', secret: 'sk-desk-0123456789', customHost: 'http://127.0.0.1:1/v1', chatOnly: true }) });
        expect(created.status).toBe(201);
        older = (await created.json()) as { id: string; key: string };
      } finally {
        await desktop.close();
      }
      // Twins of both kinds, as a data dir from before unique names may hold them: a gateway key, and the
      // newest of all a virtual key (a copy of the row under another id and key).
      const db = openDatabase(dataDir);
      db.prepare("INSERT INTO gateway_keys (id, name, key_hash, key_prefix, created_at, updated_at) VALUES ('gk_twin', 'DESK', ?, 'gh-gk-x', ?, ?)").run(randomBytes(32), Date.now() + 1_000, Date.now() + 1_000);
      db.prepare(
        `INSERT INTO virtual_keys (id, name, provider, custom_host, key_hash, key_prefix, settings, credentials, created_at, updated_at, allow_routing, chat_only)
         SELECT 'vk_twin', 'Desk', provider, custom_host, ?, key_prefix, settings, credentials, created_at + 2000, updated_at + 2000, allow_routing, 0 FROM virtual_keys WHERE id = ?`,
      ).run(randomBytes(32), older.id);
      db.close();

      const url = await postgres.newDatabase();
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      expect(await runMigrateCommand(['--data-dir', dataDir, '--to', url], { stdout, stderr, env: { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY } })).toBe(0);
      expect(err).toBe('');
      expect(out).toContain("2 active keys shared a name with a newer key (names are unique in team mode): renamed 'name (2)'");

      const team = await startGateway({ databaseUrl: url });
      try {
        const key = (await (await team.admin(`/virtual-keys/${older.id}`)).json()) as { name: string; chatOnly: boolean };
        expect(key).toMatchObject({ name: 'desk (3)', chatOnly: true });
        expect(((await (await team.admin('/gateway-keys/gk_twin')).json()) as { name: string }).name).toBe('DESK (2)');
        expect(await (await team.admin('/virtual-keys/vk_twin')).json()).toMatchObject({ name: 'Desk', chatOnly: false });
      } finally {
        await team.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
