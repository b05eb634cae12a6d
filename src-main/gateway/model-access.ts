// The allow-lists of the running gateway: which models each key may call, held in memory (one map lookup
// per call; most keys have no list) and reloaded when the store says they changed, from this server's
// admin API, the CLI or another instance. Checked at admission, like a limit: a model not on the key's
// list is a 403 in the client's dialect before any provider is called.
import { GatewayError } from '../core/errors.js';
import type { Caller } from '../core/keys.js';
import { allowListMatcher, type ModelAllowListRepository } from '../core/model-allow-lists.js';

interface CompiledList {
  entries: string[];
  allows: (model: string, routeName: string | undefined) => boolean;
}

export class ModelAccess {
  private readonly timer: NodeJS.Timeout;
  /** A read of the lists is on its way; one at a time. */
  private reading = false;
  /** Moves at each change this server makes, so that a read it overtook is not applied. */
  private changes = 0;

  /** The lists loaded before the first call is checked, then kept in step by polling the store's version. */
  static async open(store: ModelAllowListRepository, options: { intervalMs?: number } = {}): Promise<ModelAccess> {
    const version = store.version();
    return new ModelAccess(store, compiled(await store.all()), version, options.intervalMs ?? 500);
  }

  private constructor(
    private readonly store: ModelAllowListRepository,
    private lists: Map<string, CompiledList>,
    private loadedVersion: string,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => this.refresh(), intervalMs);
    this.timer.unref();
  }

  get(keyId: string): Promise<string[] | null> {
    return this.store.get(keyId);
  }

  /** Every key that has a list, as this server applies them now. */
  all(): Array<{ keyId: string; allowedModels: string[] }> {
    return [...this.lists].map(([keyId, list]) => ({ keyId, allowedModels: list.entries }));
  }

  /**
   * Sets (null: removes) a key's list and applies it to this server at once. The store's version moved, so
   * the next poll reads every list again (and with them any other change made meanwhile).
   */
  async set(keyId: string, models: string[] | null): Promise<string[] | null> {
    await this.store.set(keyId, models);
    const lists = new Map(this.lists);
    if (models === null) lists.delete(keyId);
    else lists.set(keyId, compile(models));
    this.lists = lists;
    this.changes++;
    return models;
  }

  /** Throws the 403 when the caller's key has a list and the model (or the route serving it) is not on it. */
  check(caller: Caller, model: string, routeName: string | undefined): void {
    if (caller.keyId === null) return;
    const list = this.lists.get(caller.keyId);
    if (list === undefined || list.allows(model, routeName)) return;
    const who = caller.kind === 'virtual-key' && caller.name !== undefined ? `Key '${caller.name}'` : `Key ${caller.keyId}`;
    const shown = list.entries.length > 10 ? `${list.entries.slice(0, 10).join(', ')} and ${list.entries.length - 10} more` : list.entries.join(', ');
    throw new GatewayError(
      403,
      'permission_error',
      `${who} may not call model '${model}'; it may call only: ${shown}. Its owner can change that (allowedModels on the key: the Keys page, or 'gatehouse keys models NAME --allow ...').`,
      'model',
      'model_not_allowed',
    );
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** Reads the lists when their version moved, without holding this thread: calls go on meanwhile (and while the store does not answer). */
  private refresh(): void {
    if (this.reading) return;
    let version: string;
    try {
      version = this.store.version();
    } catch {
      // Busy or closing: the next tick looks again.
      return;
    }
    if (version === this.loadedVersion) return;
    this.reading = true;
    const changes = this.changes;
    this.store
      .all()
      .then((all) => {
        if (this.changes !== changes) return;
        this.lists = compiled(all);
        this.loadedVersion = version;
      })
      .catch(() => {
        // Unreachable for now: the version still differs, so the next tick reads again.
      })
      .finally(() => {
        this.reading = false;
      });
  }
}

const compile = (entries: string[]): CompiledList => ({ entries, allows: allowListMatcher(entries) });
const compiled = (all: Map<string, string[]>): Map<string, CompiledList> => new Map([...all].map(([keyId, entries]) => [keyId, compile(entries)]));
