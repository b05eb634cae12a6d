// The CLI's storage on team mode's PostgreSQL (storage.ts loads it only for --database-url or GATEHOUSE_DATABASE_URL).
import { masterKeyProtector, MASTER_KEY_ENV } from '../store/key-protection.js';
import { PgKeyLimitsStore } from '../store-postgres/key-limits.js';
import { PgKeyStore } from '../store-postgres/key-store.js';
import { PgMcpServerStore } from '../store-postgres/mcp-servers.js';
import { PgModelAllowListStore } from '../store-postgres/model-allow-lists.js';
import { PgBridge } from '../store-postgres/pg-bridge.js';
import { checkDatabaseUrl } from '../store-postgres/open.js';
import { PgRouteStore } from '../store-postgres/routes.js';
import { migrate } from '../store-postgres/schema.js';
import { PgSettingsStore } from '../store-postgres/settings.js';
import { once, type CliStorage, type OpenedStorage, type StoragePlace } from './storage.js';

/**
 * Team mode's PostgreSQL, with the repositories a team instance runs on, but as a client: no instance is
 * registered, nothing is listened for and no log is written. Secrets are sealed with the team's data key,
 * which GATEHOUSE_MASTER_KEY unwraps as on every instance.
 */
export async function postgresStorage(place: StoragePlace & { backend: 'postgresql' }, env: NodeJS.ProcessEnv): Promise<OpenedStorage> {
  checkDatabaseUrl(place.url);
  // The schema of this version, as a starting instance makes it: a command may be the first to use the database.
  await migrate(place.url);
  const bridge = new PgBridge({ url: place.url });
  const keys = once(async () => {
    const masterKey = env[MASTER_KEY_ENV];
    if (masterKey === undefined || masterKey.trim() === '') {
      throw new Error(`Team mode (--database-url) needs ${MASTER_KEY_ENV}: the one every team instance runs with (provider and MCP secrets are sealed with it).`);
    }
    return PgKeyStore.open(bridge, masterKeyProtector(masterKey));
  });
  let keyStore: PgKeyStore | undefined;
  const openKeys = async () => (keyStore = await keys());
  const storage: CliStorage = {
    place,
    keys: openKeys,
    mcpServers: once(async () => new PgMcpServerStore(bridge, (await openKeys()).valueSealer())),
    routes: once(() => PgRouteStore.open(bridge)),
    limits: once(async () => new PgKeyLimitsStore(bridge)),
    modelAllowLists: once(async () => new PgModelAllowListStore(bridge)),
    settings: once(() => PgSettingsStore.open(bridge)),
    protectionWarning: async () => null,
  };
  return {
    storage,
    close: () => {
      keyStore?.close();
      return bridge.close();
    },
  };
}
