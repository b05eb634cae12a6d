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
  private lists = new Map<string, CompiledList>();
  private loadedVersion = '';
  private readonly timer: NodeJS.Timeout;
  /** A read off the thread (allLater) is on its way; one at a time. */
  private reading = false;
  /** Moves at each load, so that a read off the thread that an admin write overtook is not applied. */
  private loads = 0;

  constructor(
    private readonly store: ModelAllowListRepository,
    options: { intervalMs?: number } = {},
  ) {
    this.reload();
    this.timer = setInterval(() => this.refresh(), options.intervalMs ?? 500);
    this.timer.unref();
  }

  get(keyId: string): string[] | null {
    return this.store.get(keyId);
  }

  /** Every key that has a list, as this server applies them now. */
  all(): Array<{ keyId: string; allowedModels: string[] }> {
    return [...this.lists].map(([keyId, list]) => ({ keyId, allowedModels: list.entries }));
  }

  /** Sets (null: removes) a key's list and applies it to this server at once. */
  set(keyId: string, models: string[] | null): string[] | null {
    this.store.set(keyId, models);
    this.reload();
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

  private refresh(): void {
    try {
      const version = this.store.version();
      if (version === this.loadedVersion) return;
      if (this.store.allLater) this.reloadLater(version);
      else this.reload();
    } catch {
      // Busy or closing: the next tick looks again.
    }
  }

  /** A store across the network is read off this thread: the calls in flight go on meanwhile (and while it does not answer). */
  private reloadLater(version: string): void {
    if (this.reading) return;
    this.reading = true;
    const loads = this.loads;
    this.store.allLater!()
      .then((all) => {
        if (this.loads === loads) this.apply(all, version);
      })
      .catch(() => {
        // Unreachable for now: the version still differs, so the next tick reads again.
      })
      .finally(() => {
        this.reading = false;
      });
  }

  private reload(): void {
    const version = this.store.version();
    this.apply(this.store.all(), version);
  }

  private apply(all: Map<string, string[]>, version: string): void {
    const lists = new Map<string, CompiledList>();
    for (const [keyId, entries] of all) lists.set(keyId, { entries, allows: allowListMatcher(entries) });
    this.lists = lists;
    this.loadedVersion = version;
    this.loads++;
  }
}
