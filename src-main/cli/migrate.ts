// `gatehouse migrate --data-dir DIR --to postgres://…`: moves a desktop data dir into an empty team
// database (store-postgres/migrate-from-sqlite.ts). Run with the team's GATEHOUSE_MASTER_KEY, the
// desktop app or server of that data dir stopped.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DATABASE_FILE, openDatabase } from '../store/database.js';
import { headlessProtectionUpgrade } from '../store/keys/data-key.js';
import { takeExclusiveUse } from '../store/exclusive-use.js';
import { masterKeyProtector, MASTER_KEY_ENV } from '../store/key-protection.js';
import { migrateSqliteToPostgres } from '../store-postgres/migrate-from-sqlite.js';
import { describeDatabaseUrl } from '../store-postgres/open.js';
import type { CommandIO } from './command.js';

export const MIGRATE_USAGE = `Usage: gatehouse migrate --data-dir DIR --to postgres://user:password@host:port/database
  Copies a desktop data dir (keys with their secrets still sealed, routes, settings, model overrides, saved
  prompts, limits and spend, the request log and its usage totals) into an existing, empty PostgreSQL database.
  Stop the desktop app or server of DIR first, and run with the ${MASTER_KEY_ENV} every team instance uses.`;

export async function runMigrateCommand(args: string[], io: CommandIO): Promise<number> {
  let values: { 'data-dir'?: string; to?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${MIGRATE_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${MIGRATE_USAGE}\n`);
    return 0;
  }
  const dataDir = values['data-dir'];
  const to = values.to;
  if (!dataDir || !to) {
    io.stderr.write(`gatehouse migrate needs --data-dir and --to.\n${MIGRATE_USAGE}\n`);
    return 2;
  }
  if (!existsSync(join(dataDir, DATABASE_FILE))) {
    io.stderr.write(`${join(dataDir, DATABASE_FILE)} does not exist: --data-dir must be a Gatehouse data dir.\n`);
    return 2;
  }
  const masterKey = io.env[MASTER_KEY_ENV];
  if (masterKey === undefined || masterKey.trim() === '') {
    io.stderr.write(`gatehouse migrate needs ${MASTER_KEY_ENV}: the one every team instance will run with (the sealed secrets move as they are, under it).\n`);
    return 2;
  }
  const db = openDatabase(dataDir);
  try {
    if (!takeExclusiveUse(db)) {
      io.stderr.write(
        `gatehouse migrate refused: ${dataDir} is in use (another process has its database open: a gatehouse serve or the desktop app). Stop it, then run gatehouse migrate again; nothing was copied.\n`,
      );
      return 1;
    }
    const started = Date.now();
    const counts = await migrateSqliteToPostgres(db, to, masterKeyProtector(masterKey), headlessProtectionUpgrade(dataDir, io.env));
    io.stdout.write(
      `Copied into ${describeDatabaseUrl(to)} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${counts.virtualKeys} virtual keys, ${counts.gatewayKeys} gateway keys, ` +
        `${counts.routes} routes, ${counts.settings} settings, ${counts.savedPrompts} saved prompts, ${counts.keyLimits} key limits, ${counts.logRows} log rows, ${counts.mcpServers} MCP servers.\n`,
    );
    if (counts.renamedKeys) io.stdout.write(`${counts.renamedKeys} active keys shared a name with a newer key (names are unique in team mode): renamed 'name (2)' and so on; the newest kept its name.\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`gatehouse migrate failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    db.close();
  }
}
