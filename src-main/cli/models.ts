// `gatehouse keys models NAME [--allow a,b,... | --all] [--json]`: which models a virtual or gateway key
// may call (by name or id). --allow sets the list (model names, globs like claude-*, route:NAME), --all
// removes it; no flag shows it. It writes the database directly; a server on the same data dir applies
// the change within a second.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../app.js';
import { DATABASE_FILE, openDatabase } from '../store/database.js';
import { KeyLimitsTable } from '../store/key-limits.js';
import { ModelAllowListTable } from '../store/model-allow-lists.js';
import { validAllowedModels } from '../core/model-allow-lists.js';
import { GatewayError } from '../core/errors.js';
import { UsageError, type CommandIO } from './command.js';
import { findKey } from './find-key.js';

const describeList = (models: string[] | null) => (models === null ? 'every model' : `only ${models.join(', ')}`);

export async function runModelsCommand(args: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, allow: { type: 'string' }, all: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('keys models takes one key name (or id), e.g. gatehouse keys models ci-bot --allow gpt-4o-mini,claude-*');
  if (values.allow !== undefined && values.all) throw new UsageError('keys models takes --allow or --all, not both.');
  const dataDir = values['data-dir'] ?? defaultDataDir(io.env);
  if (!existsSync(join(dataDir, DATABASE_FILE))) throw new Error(`No keys in ${dataDir} yet: create one with 'gatehouse keys add' or 'gatehouse gateway-keys add'.`);
  const db = openDatabase(dataDir);
  try {
    const key = findKey(new KeyLimitsTable(db), positionals[0]);
    const lists = new ModelAllowListTable(db);
    let models = lists.get(key.id);
    if (values.allow !== undefined || values.all) {
      try {
        models = values.all ? null : validAllowedModels(values.allow!.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''));
      } catch (error) {
        if (error instanceof GatewayError) throw new UsageError(error.message.replace(`'allowedModels'`, '--allow'));
        throw error;
      }
      lists.set(key.id, models);
      io.stderr.write(`${key.kind === 'virtual' ? 'Virtual key' : 'Gateway API key'} ${key.id} '${key.name}' may call ${describeList(models)}.\n`);
    }
    if (values.json) io.stdout.write(`${JSON.stringify({ keyId: key.id, keyName: key.name, kind: key.kind, allowedModels: models }, null, 2)}\n`);
    else if (values.allow === undefined && !values.all) io.stdout.write(`${key.id} '${key.name}' (${key.kind}): ${describeList(models)}\n`);
    return 0;
  } finally {
    db.close();
  }
}
