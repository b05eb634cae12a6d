import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src-main/core/errors.js';
import { DatabaseOpenError, openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { KEY_FILE_NAME, keyFileProtector, masterKeyProtector, type KeyProtector } from '../../../src-main/store/key-protection.js';
import { KeyStore } from '../../../src-main/store/keys/key-store.js';
import { headlessProtectionUpgrade, KeyStoreLockedError } from '../../../src-main/store/keys/data-key.js';

let dataDir: string;
let databases: SqliteDatabase[];
let stores: KeyStore[];
const masterKey = randomBytes(32).toString('base64');

function openDb(): SqliteDatabase {
  const db = openDatabase(dataDir);
  databases.push(db);
  return db;
}

async function openStore(protector: KeyProtector = masterKeyProtector(masterKey), db = openDb()): Promise<KeyStore> {
  const store = await KeyStore.open(db, protector);
  stores.push(store);
  return store;
}

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-keys-'));
  databases = [];
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  for (const db of databases) if (db.open) db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('virtual keys', () => {
  it('are gh-vk- plus at least 160 random bits, shown once, listed only by prefix', async () => {
    const store = await openStore();
    const created = await store.createVirtualKey({ name: 'My OpenAI', provider: 'openai', secret: 'sk-test-secret' });
    expect(created.key).toMatch(/^gh-vk-[A-Za-z0-9_-]{32,}$/);
    expect(Buffer.from(created.key.slice('gh-vk-'.length), 'base64url').length * 8).toBeGreaterThanOrEqual(160);
    expect(created.key.startsWith(created.keyPrefix)).toBe(true);
    expect(created.keyPrefix.length).toBeLessThanOrEqual(10);
    const listed = JSON.stringify(await store.listVirtualKeys());
    expect(listed).toContain(created.id);
    expect(listed).not.toContain(created.key);
    expect(listed).not.toContain('sk-test-secret');
  });

  it('resolve to their provider, host and credentials, decrypted on demand', async () => {
    const store = await openStore();
    const created = await store.createVirtualKey({ name: 'local', provider: 'openai', secret: 'sk-abc', customHost: 'http://127.0.0.1:9999/v1/' });
    const caller = store.resolve(created.key);
    expect(caller).toMatchObject({ kind: 'virtual-key', keyId: created.id, provider: 'openai', customHost: 'http://127.0.0.1:9999/v1' });
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-abc' });
  });

  it('resolve from memory: no database access per lookup', async () => {
    const db = openDb();
    const store = await openStore(undefined, db);
    const created = await store.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-mem' });
    db.close();
    const caller = store.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-mem' });
  });

  it('unknown and revoked keys do not resolve', async () => {
    const store = await openStore();
    const created = await store.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-1' });
    expect(store.resolve('gh-vk-unknown')).toBeUndefined();
    expect(store.resolve(created.key.slice(0, -1))).toBeUndefined();
    await store.revokeVirtualKey(created.id);
    expect(store.resolve(created.key)).toBeUndefined();
    expect(await store.listVirtualKeys()).toHaveLength(0);
    expect((await store.listVirtualKeys({ includeRevoked: true }))[0].revokedAt).not.toBeNull();
  });

  it('can be renamed, have their secret rotated, and be reissued', async () => {
    const store = await openStore();
    const created = await store.createVirtualKey({ name: 'old', provider: 'openai', secret: 'sk-old' });
    expect((await store.updateVirtualKey(created.id, { name: 'new' })).name).toBe('new');

    await store.updateVirtualKey(created.id, { secret: 'sk-rotated' });
    const caller = store.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-rotated' });

    const reissued = await store.updateVirtualKey(created.id, { regenerateKey: true });
    expect(reissued.key).toMatch(/^gh-vk-/);
    expect(store.resolve(created.key)).toBeUndefined();
    expect(store.resolve(reissued.key as string)?.kind).toBe('virtual-key');
  });

  it('refuses unknown providers, missing secrets, foreign fields and bad hosts with a 400', async () => {
    const store = await openStore();
    const attempt = async (input: Parameters<KeyStore['createVirtualKey']>[0]) => {
      try {
        await store.createVirtualKey(input);
      } catch (error) {
        return error as GatewayError;
      }
      throw new Error('expected a refusal');
    };
    expect(await attempt({ name: 'x', provider: 'nope', secret: 's' })).toMatchObject({ status: 400, message: expect.stringContaining("'nope'") });
    expect(await attempt({ name: 'x', provider: 'openai' })).toMatchObject({ status: 400, param: 'secret' });
    expect(await attempt({ name: 'x', provider: 'openai', secret: 's', fields: { cloud_a_resource_name: 'r' } })).toMatchObject({ status: 400 });
    expect(await attempt({ name: 'x', provider: 'openai', secret: 's', customHost: 'ftp://host' })).toMatchObject({ status: 400, param: 'customHost' });
    expect(await attempt({ name: '  ', provider: 'openai', secret: 's' })).toMatchObject({ status: 400, param: 'name' });
  });

  it('a local model behind a custom host needs no token', async () => {
    const store = await openStore();
    const created = await store.createVirtualKey({ name: 'llama', provider: 'openai', customHost: 'http://127.0.0.1:11434/v1' });
    const caller = store.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({});
  });

  it('a ciphertext copied onto another key does not decrypt there', async () => {
    const db = openDb();
    const store = await openStore(undefined, db);
    const victim = await store.createVirtualKey({ name: 'victim', provider: 'openai', secret: 'sk-victim' });
    const attacker = await store.createVirtualKey({ name: 'attacker', provider: 'openai', secret: 'sk-attacker' });
    db.prepare('UPDATE virtual_keys SET credentials = (SELECT credentials FROM virtual_keys WHERE id = ?) WHERE id = ?').run(victim.id, attacker.id);
    store.reloadIfChanged();
    const caller = store.resolve(attacker.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    await expect(caller.loadCredentials()).rejects.toThrow(/cannot be decrypted/);
  });
});

describe('gateway API keys', () => {
  it('are created, resolved, renamed and revoked, stored only as a hash', async () => {
    const db = openDb();
    const store = await openStore(undefined, db);
    const created = await store.createGatewayKey({ name: 'ci' });
    expect(created.key).toMatch(/^gh-gk-[A-Za-z0-9_-]{32,}$/);
    expect(store.resolve(created.key)).toEqual({ kind: 'gateway-key', keyId: created.id });
    expect((await store.renameGatewayKey(created.id, 'ci-2')).name).toBe('ci-2');
    const row = db.prepare('SELECT * FROM gateway_keys').get() as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(created.key);
    await store.revokeGatewayKey(created.id);
    expect(store.resolve(created.key)).toBeUndefined();
  });

  it('unknown ids give a 404', async () => {
    const store = await openStore();
    await expect(store.revokeGatewayKey('gk_missing')).rejects.toThrow(expect.objectContaining({ status: 404 }));
    await expect(store.getVirtualKey('vk_missing')).rejects.toThrow(expect.objectContaining({ status: 404 }));
  });
});

describe('the data key', () => {
  it('survives a restart with the same master key', async () => {
    const first = await openStore();
    const created = await first.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-persist' });
    const second = await openStore();
    const caller = second.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-persist' });
  });

  it('a wrong master key gives a clear error, not garbage', async () => {
    await openStore();
    await expect(openStore(masterKeyProtector(randomBytes(32).toString('base64')))).rejects.toThrow(KeyStoreLockedError);
    await expect(openStore(masterKeyProtector(randomBytes(32).toString('base64')))).rejects.toThrow(/GATEHOUSE_MASTER_KEY is wrong or changed/);
  });

  it('another protection mode gives a clear error naming both', async () => {
    await openStore();
    await expect(openStore(keyFileProtector(dataDir))).rejects.toThrow(/protected by the GATEHOUSE_MASTER_KEY key, but this process uses the key file/);
  });

  it('a protector that hands back the wrong bytes is caught', async () => {
    await openStore();
    const liar: KeyProtector = { mode: 'master-key', isProtected: true, warning: null, wrap: async (key) => key, unwrap: async () => randomBytes(48) };
    await expect(openStore(liar)).rejects.toThrow(KeyStoreLockedError);
  });

  it('moves from the key file to a master key when told the previous protector', async () => {
    const before = await openStore(keyFileProtector(dataDir));
    const created = await before.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-moved' });
    const moved: string[] = [];
    const after = await KeyStore.open(openDb(), masterKeyProtector(masterKey), {
      previousProtectors: [keyFileProtector(dataDir)],
      onRewrapped: (from, to) => moved.push(`${from}->${to}`),
    });
    stores.push(after);
    expect(moved).toEqual(['key-file->master-key']);
    expect(after.protectorMode).toBe('master-key');
    const caller = after.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-moved' });
    // From now on the master key alone opens it.
    await expect(openStore(masterKeyProtector(masterKey))).resolves.toBeInstanceOf(KeyStore);
  });
});

describe('moving off the key file', () => {
  it('setting GATEHOUSE_MASTER_KEY later rewraps the data key and deletes the key file', async () => {
    const before = await openStore(keyFileProtector(dataDir));
    const created = await before.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-upgrade' });
    expect(existsSync(join(dataDir, KEY_FILE_NAME))).toBe(true);

    const env = { GATEHOUSE_MASTER_KEY: masterKey };
    const after = await KeyStore.open(openDb(), masterKeyProtector(masterKey), headlessProtectionUpgrade(dataDir, env));
    stores.push(after);
    expect(after.protectorMode).toBe('master-key');
    expect(existsSync(join(dataDir, KEY_FILE_NAME))).toBe(false);
    const caller = after.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-upgrade' });
  });

  it('a store made with GATEHOUSE_MASTER_KEY moves into another protector (the desktop keychain) while the variable is set', async () => {
    const before = await openStore();
    const created = await before.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-to-keychain' });
    const keychainKey = randomBytes(32);
    const keychain: KeyProtector = {
      mode: 'test-keychain',
      isProtected: true,
      warning: null,
      wrap: async (key) => Buffer.concat([keychainKey, key]),
      unwrap: async (wrapped) => wrapped.subarray(32),
    };
    const after = await KeyStore.open(openDb(), keychain, headlessProtectionUpgrade(dataDir, { GATEHOUSE_MASTER_KEY: masterKey }));
    stores.push(after);
    expect(after.protectorMode).toBe('test-keychain');
    const caller = after.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-to-keychain' });
    await expect(openStore()).rejects.toThrow(/protected by the 'test-keychain' key protection/);
  });
});

describe('a second process on the same database', () => {
  it('can add and revoke keys without the data key, and a watching store sees them within a second', async () => {
    const server = await openStore();
    server.watchForExternalChanges(100);
    const cli = await KeyStore.openForWriting(openDb(), async () => {
      throw new Error('an initialised store needs no protector');
    });
    stores.push(cli);
    const created = await cli.createVirtualKey({ name: 'from cli', provider: 'openai', secret: 'sk-cli' });

    const deadline = Date.now() + 1000;
    while (!server.resolve(created.key) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const caller = server.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('the server did not see the new key within a second');
    expect(await caller.loadCredentials()).toEqual({ token: 'sk-cli' });

    await cli.revokeVirtualKey(created.id);
    const revokeDeadline = Date.now() + 1000;
    while (server.resolve(created.key) && Date.now() < revokeDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.resolve(created.key)).toBeUndefined();
  });

  it('a store opened for writing cannot decrypt', async () => {
    const server = await openStore();
    const created = await server.createVirtualKey({ name: 'a', provider: 'openai', secret: 'sk-x' });
    const cli = await KeyStore.openForWriting(openDb(), async () => masterKeyProtector(masterKey));
    stores.push(cli);
    const caller = cli.resolve(created.key);
    if (caller?.kind !== 'virtual-key') throw new Error('expected a virtual key');
    await expect(caller.loadCredentials()).rejects.toThrow(/without the data key/);
  });
});

describe('the schema', () => {
  it('a database written by a newer Gatehouse is refused, not changed', () => {
    const db = openDb();
    db.pragma('user_version = 999');
    db.close();
    expect(() => openDatabase(dataDir)).toThrow(DatabaseOpenError);
    expect(() => openDatabase(dataDir)).toThrow(/newer version of Gatehouse/);
  });
});
