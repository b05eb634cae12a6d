import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKeysCommand } from '../../../src-main/cli/keys.js';
import { openDatabase } from '../../../src-main/store/database.js';
import { masterKeyProtector } from '../../../src-main/store/key-protection.js';
import { KeyStore } from '../../../src-main/store/keys/key-store.js';
import { runInProcess } from '../../helpers/cli-in-process.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const masterKey = randomBytes(32).toString('base64');

function run(args: string[], stdin = '', env: NodeJS.ProcessEnv = { GATEHOUSE_MASTER_KEY: masterKey }) {
  return runInProcess(runKeysCommand, [...args, '--data-dir', dataDir], { stdin, env });
}

/** What a running server would see: the store opened with the master key. */
async function resolveAsServer(key: string) {
  const db = openDatabase(dataDir);
  try {
    const store = await KeyStore.open(db, masterKeyProtector(masterKey));
    const caller = store.resolve(key);
    return caller?.kind === 'virtual-key' ? { provider: caller.provider, customHost: caller.customHost, credentials: await caller.loadCredentials() } : caller;
  } finally {
    db.close();
  }
}

describe('gatehouse keys', () => {
  it('add reads the secret from stdin and prints the virtual key once, alone on stdout', async () => {
    const result = await run(['keys', 'add', '--name', 'My OpenAI', '--provider', 'openai'], 'sk-from-stdin\n');
    expect(result.code).toBe(0);
    const key = result.stdout.trim();
    expect(key).toMatch(/^gh-vk-[A-Za-z0-9_-]{32,}$/);
    expect(result.stderr).toMatch(/shown only this once/);
    expect(result.stderr + result.stdout).not.toContain('sk-from-stdin');
    expect(await resolveAsServer(key)).toEqual({ provider: 'openai', customHost: undefined, credentials: { token: 'sk-from-stdin' } });
  });

  it('add binds the key to --custom-host', async () => {
    const result = await run(['keys', 'add', '--name', 'local', '--provider', 'openai', '--custom-host', 'http://127.0.0.1:8080/v1'], 'sk-local\n');
    expect(await resolveAsServer(result.stdout.trim())).toMatchObject({ customHost: 'http://127.0.0.1:8080/v1', credentials: { token: 'sk-local' } });
  });

  it('refuses a secret given as a flag', async () => {
    const result = await run(['keys', 'add', '--name', 'x', '--provider', 'openai', '--token', 'sk-leak']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/shell history/);
  });

  it('refuses an empty stdin when the provider needs a key', async () => {
    const result = await run(['keys', 'add', '--name', 'x', '--provider', 'openai'], '');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No API key on stdin/i);
  });

  it('list shows ids, names and prefixes, never a secret or a full key', async () => {
    const added = await run(['keys', 'add', '--name', 'listed', '--provider', 'openai'], 'sk-never-listed\n');
    const key = added.stdout.trim();
    const table = await run(['keys', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('listed');
    expect(table.stdout).toContain(key.slice(0, 10));
    expect(table.stdout).not.toContain(key);
    expect(table.stdout).not.toContain('sk-never-listed');
    const json = JSON.parse((await run(['keys', 'list', '--json'])).stdout) as { items: { id: string; name: string }[] };
    expect(json.items.map((item) => item.name)).toEqual(['listed']);
  });

  it('revoke makes the key stop working and drops it from the list', async () => {
    const key = (await run(['keys', 'add', '--name', 'gone', '--provider', 'openai'], 'sk-gone\n')).stdout.trim();
    const { items } = JSON.parse((await run(['keys', 'list', '--json'])).stdout) as { items: { id: string }[] };
    const revoked = await run(['keys', 'revoke', items[0].id]);
    expect(revoked.code).toBe(0);
    expect(await resolveAsServer(key)).toBeUndefined();
    expect(JSON.parse((await run(['keys', 'list', '--json'])).stdout)).toEqual({ items: [] });
    expect((await run(['keys', 'revoke', 'vk_nonexistent'])).code).toBe(1);
  });

  it('rotate replaces the secret from stdin and keeps the key', async () => {
    const key = (await run(['keys', 'add', '--name', 'rot', '--provider', 'openai'], 'sk-before\n')).stdout.trim();
    const { items } = JSON.parse((await run(['keys', 'list', '--json'])).stdout) as { items: { id: string }[] };
    expect((await run(['keys', 'rotate', items[0].id], 'sk-after\n')).code).toBe(0);
    expect(await resolveAsServer(key)).toMatchObject({ credentials: { token: 'sk-after' } });
  });

  it('needs no master key once the store exists (it only seals, never decrypts)', async () => {
    await run(['keys', 'add', '--name', 'first', '--provider', 'openai'], 'sk-1\n');
    const second = await run(['keys', 'add', '--name', 'second', '--provider', 'openai'], 'sk-2\n', {});
    expect(second.code).toBe(0);
    expect(await resolveAsServer(second.stdout.trim())).toMatchObject({ credentials: { token: 'sk-2' } });
  });

  it('warns when secrets are protected only by the key file', async () => {
    const result = await run(['keys', 'add', '--name', 'x', '--provider', 'openai'], 'sk-1\n', {});
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/only as safe as that file/);
  });

  it('list and revoke on a data dir without keys create nothing (no database, no key file)', async () => {
    const fresh = join(dataDir, 'fresh');
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const io = { stdin: Readable.from(['']), stdout, stderr, env: {} };
    expect(await runKeysCommand(['keys', 'list', '--data-dir', fresh], io)).toBe(0);
    expect(await runKeysCommand(['keys', 'revoke', 'vk_x', '--data-dir', fresh], io)).toBe(1);
    expect(existsSync(fresh)).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('on a terminal, prompts for the secret without echoing it (backspace works)', async () => {
    const terminal = Object.assign(new PassThrough(), { isTTY: true, rawModes: [] as boolean[], setRawMode(mode: boolean) {
      terminal.rawModes.push(mode);
      return terminal;
    } });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let shown = '';
    stderr.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    let printed = '';
    stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const running = runKeysCommand(['keys', 'add', '--name', 'typed', '--provider', 'openai', '--data-dir', dataDir], { stdin: terminal, stdout, stderr, env: { GATEHOUSE_MASTER_KEY: masterKey } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    terminal.write('sk-typed-secretX\u007f\r');
    expect(await running).toBe(0);
    expect(shown).toContain('API key: ');
    expect(shown).not.toContain('sk-typed');
    expect(terminal.rawModes).toEqual([true, false]);
    expect(await resolveAsServer(printed.trim())).toMatchObject({ credentials: { token: 'sk-typed-secret' } });
  });

  it('unknown commands and flags print the usage', async () => {
    expect((await run(['keys', 'frobnicate'])).code).toBe(2);
    expect((await run(['keys', 'list', '--bogus'])).code).toBe(2);
  });
});

describe('gatehouse gateway-keys', () => {
  it('add prints a gateway key once; list hides it; revoke stops it', async () => {
    const added = await run(['gateway-keys', 'add', '--name', 'ci']);
    expect(added.code).toBe(0);
    const key = added.stdout.trim();
    expect(key).toMatch(/^gh-gk-/);
    expect(await resolveAsServer(key)).toMatchObject({ kind: 'gateway-key' });
    const listed = await run(['gateway-keys', 'list', '--json']);
    expect(listed.stdout).not.toContain(key);
    const { items } = JSON.parse(listed.stdout) as { items: { id: string }[] };
    expect((await run(['gateway-keys', 'revoke', items[0].id])).code).toBe(0);
    expect(await resolveAsServer(key)).toBeUndefined();
  });
});
