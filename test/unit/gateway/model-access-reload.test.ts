// A key's model allow-list is reloaded when the store says it changed. On a store across the network
// (PostgreSQL) that read happens off the serving thread (every read of the store is a promise): a database that hangs must not hold every call
// for as long as the read waits. Meanwhile the lists already loaded keep being applied.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Caller } from '../../../src-main/core/keys.js';
import type { ModelAllowListRepository } from '../../../src-main/core/model-allow-lists.js';
import { ModelAccess } from '../../../src-main/gateway/model-access.js';

const caller: Caller = { kind: 'gateway-key', keyId: 'k1' };

/** A store whose reads are answered only when the test says so. */
function networkStore() {
  let version = 1;
  let lists = new Map([['k1', ['gpt-4o']]]);
  const waiting: Array<() => void> = [];
  const store: ModelAllowListRepository & { waitingReads: number } = {
    get: async (keyId) => lists.get(keyId) ?? null,
    // The lists as they were when the read was made, answered later.
    all: vi.fn(() => {
      const read = new Map(lists);
      return new Promise<Map<string, string[]>>((resolve) => waiting.push(() => resolve(read)));
    }),
    set: async () => undefined,
    version: () => String(version),
    get waitingReads() {
      return waiting.length;
    },
  };
  return {
    store,
    change(next: Map<string, string[]>) {
      lists = next;
      version++;
    },
    answer: () => waiting.splice(0).forEach((resolve) => resolve()),
  };
}

/** ModelAccess with its first load answered. */
async function opened(network: ReturnType<typeof networkStore>): Promise<ModelAccess> {
  const opening = ModelAccess.open(network.store, { intervalMs: 500 });
  network.answer();
  return opening;
}

describe('model allow-lists reloaded from a store across the network', () => {
  let access: ModelAccess | undefined;
  afterEach(() => {
    access?.close();
    vi.useRealTimers();
  });

  it('reads a change off the thread, keeps applying the loaded lists meanwhile, and applies the change when it arrives', async () => {
    vi.useFakeTimers();
    const network = networkStore();
    access = await opened(network);
    expect(() => access!.check(caller, 'gpt-4o-mini', undefined)).toThrow(/may call only: gpt-4o/);
    const readsAtStart = vi.mocked(network.store.all).mock.calls.length;

    network.change(new Map([['k1', ['gpt-4o', 'gpt-4o-mini']]]));
    await vi.advanceTimersByTimeAsync(2_000);
    // Asked once, however many ticks pass while it does not answer; never waited for.
    expect(network.store.waitingReads).toBe(1);
    expect(vi.mocked(network.store.all).mock.calls.length).toBe(readsAtStart + 1);
    expect(() => access!.check(caller, 'gpt-4o-mini', undefined)).toThrow(/may call only: gpt-4o/);

    network.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(() => access!.check(caller, 'gpt-4o-mini', undefined)).not.toThrow();
    // Nothing changed since: no further read.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(network.store.waitingReads).toBe(0);
  });

  it('does not apply a read that an admin change overtook', async () => {
    vi.useFakeTimers();
    const network = networkStore();
    access = await opened(network);
    network.change(new Map([['k1', ['gpt-4o', 'o3']]]));
    await vi.advanceTimersByTimeAsync(600);
    expect(network.store.waitingReads).toBe(1);
    // This server's own change is applied at once (a read that waits: an admin call may).
    network.change(new Map([['k1', ['o3']]]));
    await access.set('k1', ['o3']);
    expect(() => access!.check(caller, 'gpt-4o', undefined)).toThrow(/may call only: o3/);
    network.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(() => access!.check(caller, 'gpt-4o', undefined)).toThrow(/may call only: o3/);
  });
});
