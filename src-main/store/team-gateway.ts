// The team gateway in SQLite: one row of the `settings` table (`teamGateway`), its admin token sealed to the
// data key through the key store's ValueSealer (as provider secrets are), so the data dir never holds it in
// plain text. The Settings schema ignores the row: it is not a setting the settings API shows or takes.
import type { TeamGatewayConnection, TeamGatewayRepository } from '../core/team-gateway.js';
import type { SqliteDatabase } from './database.js';
import type { ValueSealer } from './keys/key-store.js';
import type { SecretContext } from './secret-box.js';

const ROW = 'teamGateway';
const TOKEN_CONTEXT: SecretContext = { table: 'settings', rowId: ROW, field: 'token' };

interface StoredTeamGateway {
  address: string;
  /** The sealed token, base64. */
  sealedToken: string;
}

export class TeamGatewayStore implements TeamGatewayRepository {
  private current: TeamGatewayConnection | null;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly sealer: ValueSealer,
  ) {
    const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(ROW) as { value: string } | undefined;
    this.current = row ? this.opened(JSON.parse(row.value) as StoredTeamGateway) : null;
  }

  get(): TeamGatewayConnection | null {
    return this.current;
  }

  save(connection: TeamGatewayConnection): void {
    const stored: StoredTeamGateway = { address: connection.address, sealedToken: this.sealer.seal(TOKEN_CONTEXT, connection.token).toString('base64') };
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(ROW, JSON.stringify(stored));
    this.current = { ...connection };
  }

  clear(): void {
    this.db.prepare('DELETE FROM settings WHERE key = ?').run(ROW);
    this.current = null;
  }

  private opened(stored: StoredTeamGateway): TeamGatewayConnection | null {
    try {
      return { address: stored.address, token: this.sealer.open(TOKEN_CONTEXT, Buffer.from(stored.sealedToken, 'base64')) };
    } catch {
      // A row sealed to another data key (a copied database) cannot be used: the user connects again.
      return null;
    }
  }
}
