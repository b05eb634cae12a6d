// `gatehouse keys models NAME [--allow a,b,... | --all] [--json]`: which models a virtual or gateway key
// may call (by name or id). --allow sets the list (model names, globs like claude-*, route:NAME), --all
// removes it; no flag shows it. It writes through the server's repository (storage.ts); a running server
// applies the change within a second.
import { parseArgs } from 'node:util';
import { validAllowedModels } from '../core/model-allow-lists.js';
import { GatewayError } from '../core/errors.js';
import { UsageError, type CommandIO } from './command.js';
import { findKey } from './find-key.js';
import { STORAGE_OPTIONS, storagePlace, withStorage } from './storage.js';

const describeList = (models: string[] | null) => (models === null ? 'every model' : `only ${models.join(', ')}`);

export async function runModelsCommand(args: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...STORAGE_OPTIONS, allow: { type: 'string' }, all: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('keys models takes one key name (or id), e.g. gatehouse keys models ci-bot --allow gpt-4o-mini,claude-*');
  if (values.allow !== undefined && values.all) throw new UsageError('keys models takes --allow or --all, not both.');
  const place = storagePlace(values, io.env);
  return withStorage(place, io.env, false, async (storage) => {
    if (!storage) throw new Error(`No keys in ${place.dataDir} yet: create one with 'gatehouse keys add' or 'gatehouse gateway-keys add'.`);
    const key = await findKey(await storage.limits(), positionals[0]);
    const lists = await storage.modelAllowLists();
    let models = await lists.get(key.id);
    if (values.allow !== undefined || values.all) {
      try {
        models = values.all ? null : validAllowedModels(values.allow!.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''));
      } catch (error) {
        if (error instanceof GatewayError) throw new UsageError(error.message.replace(`'allowedModels'`, '--allow'));
        throw error;
      }
      await lists.set(key.id, models);
      io.stderr.write(`${key.kind === 'virtual' ? 'Virtual key' : 'Gateway API key'} ${key.id} '${key.name}' may call ${describeList(models)}.\n`);
    }
    if (values.json) io.stdout.write(`${JSON.stringify({ keyId: key.id, keyName: key.name, kind: key.kind, allowedModels: models }, null, 2)}\n`);
    else if (values.allow === undefined && !values.all) io.stdout.write(`${key.id} '${key.name}' (${key.kind}): ${describeList(models)}\n`);
    return 0;
  });
}
