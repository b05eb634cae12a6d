// The user's model overrides: kept in the settings table across a restart, checked on the way in, and
// in force for pricing at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { ModelOverrideStore } from '../../../src-main/store/model-overrides.js';
import { setModelOverrides } from '../../../src-main/catalog/catalog.js';
import { priceCall } from '../../../src-main/catalog/pricing.js';
import { SettingsStore } from '../../../src-main/store/settings.js';

let dir: string;
let db: SqliteDatabase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-overrides-'));
  db = openDatabase(dir);
});
afterEach(() => {
  setModelOverrides([]);
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ModelOverrideStore', () => {
  it('keeps overrides across a restart and prices with them at once', async () => {
    const store = new ModelOverrideStore(db);
    await store.set({ provider: 'ollama', model: 'qwen2.5-coder', input: 0, output: 0, contextWindow: 32768 });
    expect(priceCall('ollama', 'qwen2.5-coder', { inputTokens: 1000, outputTokens: 100 })).toBe(0);
    setModelOverrides([]);
    expect(priceCall('ollama', 'qwen2.5-coder', { inputTokens: 1000, outputTokens: 100 })).toBeNull();
    const reopened = new ModelOverrideStore(db);
    expect(reopened.all()).toEqual([{ provider: 'ollama', model: 'qwen2.5-coder', input: 0, output: 0, contextWindow: 32768 }]);
    expect(priceCall('ollama', 'qwen2.5-coder', { inputTokens: 1000, outputTokens: 100 })).toBe(0);
    // The general settings are untouched by the overrides' row.
    expect(new SettingsStore(db).get().retentionDays).toBe(30);
  });

  it('refuses negative prices, unknown fields and an empty model', async () => {
    const store = new ModelOverrideStore(db);
    await expect(store.set({ provider: 'openai', model: 'gpt-4o', input: -1 })).rejects.toThrow();
    await expect(store.set({ provider: 'openai', model: 'gpt-4o', price: 1 })).rejects.toThrow();
    await expect(store.set({ provider: 'openai', model: ' ' })).rejects.toThrow();
    expect(store.all()).toEqual([]);
  });

  it('replaces an override of the same provider and model, and removes one', async () => {
    const store = new ModelOverrideStore(db);
    await store.set({ provider: 'openai', model: 'gpt-4o', input: 1 });
    await store.set({ provider: 'openai', model: 'gpt-4o', input: 2 });
    expect(store.all()).toEqual([{ provider: 'openai', model: 'gpt-4o', input: 2 }]);
    expect(await store.remove('openai', 'gpt-4o')).toBe(true);
    expect(await store.remove('openai', 'gpt-4o')).toBe(false);
    expect(priceCall('openai', 'gpt-4o', { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(2.5, 9);
  });
});
