// The saved prompt store: named requests that survive a restart, replaced by name, refused when malformed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/store/database.js';
import { SavedPromptStore } from '../../../src-main/store/saved-prompts.js';
import { MAX_SAVED_PROMPT_BODY_BYTES } from '../../../src-main/core/saved-prompts.js';
import { GatewayError } from '../../../src-main/core/errors.js';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-saved-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('SavedPromptStore', () => {
  it('keeps a saved prompt across a reopen of the database', async () => {
    const dir = freshDir();
    const db = openDatabase(dir);
    const { prompt, created } = await new SavedPromptStore(db).save({ name: ' Haiku ', endpoint: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'a haiku' }] }, keyId: 'vk_1' });
    expect(created).toBe(true);
    expect(prompt.name).toBe('Haiku');
    db.close();

    const reopened = openDatabase(dir);
    const list = await new SavedPromptStore(reopened).list();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: prompt.id, name: 'Haiku', endpoint: '/v1/chat/completions', keyId: 'vk_1' });
    expect(JSON.parse(list[0].body).messages[0].content).toBe('a haiku');
    reopened.close();
  });

  it('replaces a prompt saved under the same name and lists the newest first', async () => {
    const db = openDatabase(freshDir());
    const store = new SavedPromptStore(db);
    const first = (await store.save({ name: 'A', endpoint: '/v1/completions', body: '{"model":"m","prompt":"one"}' })).prompt;
    await store.save({ name: 'B', endpoint: '/v1/completions', body: { model: 'm', prompt: 'two' } });
    const replaced = await store.save({ name: 'A', endpoint: '/v1/messages', body: { model: 'm', max_tokens: 5, messages: [] } });
    expect(replaced.created).toBe(false);
    expect(replaced.prompt.id).toBe(first.id);
    expect((await store.list()).map((item) => [item.name, item.endpoint])).toEqual([
      ['A', '/v1/messages'],
      ['B', '/v1/completions'],
    ]);
    await store.delete(first.id);
    expect((await store.list()).map((item) => item.name)).toEqual(['B']);
    await expect(store.delete(first.id)).rejects.toThrow(/No saved prompt/);
    db.close();
  });

  it('refuses an empty name, an unknown endpoint, a body that is not a JSON object, and an oversized body', async () => {
    const db = openDatabase(freshDir());
    const store = new SavedPromptStore(db);
    const param = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        return (error as GatewayError).param;
      }
      throw new Error('expected a refusal');
    };
    expect(await param(() => store.save({ name: '', endpoint: '/v1/completions', body: {} }))).toBe('name');
    expect(await param(() => store.save({ name: 'x', endpoint: '/v1/models', body: {} }))).toBe('endpoint');
    expect(await param(() => store.save({ name: 'x', endpoint: '/v1/completions', body: 'not json' }))).toBe('body');
    expect(await param(() => store.save({ name: 'x', endpoint: '/v1/completions', body: 'null' }))).toBe('body');
    expect(await param(() => store.save({ name: 'x', endpoint: '/v1/completions', body: { prompt: 'x'.repeat(MAX_SAVED_PROMPT_BODY_BYTES) } }))).toBe('body');
    expect(await store.list()).toEqual([]);
    db.close();
  });
});
