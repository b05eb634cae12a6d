// The desktop key protection together with the real store and startGatehouse: moving a data dir
// from `gatehouse serve` to the desktop app, and a session whose keyring is missing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatehouse, type RunningGatehouse } from '../../../src-main/app';
import { OS_KEYCHAIN_MODE, chooseDesktopKeyProtector, type SafeStorageLike } from '../../../src-main/electron/key-protection';

function keychain(backend: string): SafeStorageLike {
  return {
    isAsyncEncryptionAvailable: async () => true,
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptStringAsync: async (text) => Buffer.from(`kc:${Buffer.from(text).toString('hex')}`),
    decryptStringAsync: async (sealed) => ({ result: Buffer.from(sealed.toString().slice(3), 'hex').toString(), shouldReEncrypt: false }),
    encryptString: () => Buffer.alloc(0),
    decryptString: () => '',
  };
}

async function admin(running: RunningGatehouse, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${running.url}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${running.adminToken}`, 'content-type': 'application/json' },
  });
}

describe('desktop key protection with the real store', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-desktop-store-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('moves a data dir set up by `gatehouse serve` (key file) to the OS keychain on the first desktop start', async () => {
    const served = await startGatehouse({ dataDir, port: 0, env: {} });
    const created = await admin(served, '/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'served', provider: 'openai', secret: 'sk-served-secret' }) });
    expect(created.status).toBe(201);
    await served.stop();
    expect(existsSync(join(dataDir, 'master.key'))).toBe(true);

    const keyProtection = await chooseDesktopKeyProtector(keychain('gnome_libsecret'), { platform: 'linux', dataDir, env: {} });
    const desktop = await startGatehouse({ dataDir, port: 0, env: {}, keyProtection });
    try {
      expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
      const settings = (await (await admin(desktop, '/settings')).json()) as { keyProtection: { mode: string; protected: boolean } };
      expect(settings.keyProtection).toMatchObject({ mode: OS_KEYCHAIN_MODE, protected: true });
      const listed = (await (await admin(desktop, '/virtual-keys')).json()) as { items: { name: string }[] };
      expect(listed.items.map((item) => item.name)).toEqual(['served']);
    } finally {
      await desktop.stop();
    }
  });

  it('refuses a keychain store on a day without the keyring, naming both protections, and leaves no key file', async () => {
    const first = await startGatehouse({ dataDir, port: 0, env: {}, keyProtection: await chooseDesktopKeyProtector(keychain('kwallet6'), { platform: 'linux', dataDir, env: {} }) });
    await first.stop();

    const withoutKeyring = await chooseDesktopKeyProtector(keychain('basic_text'), { platform: 'linux', dataDir, env: {} });
    await expect(startGatehouse({ dataDir, port: 0, env: {}, keyProtection: withoutKeyring })).rejects.toThrow(/OS keychain/);
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);

    const again = await startGatehouse({ dataDir, port: 0, env: {}, keyProtection: await chooseDesktopKeyProtector(keychain('kwallet6'), { platform: 'linux', dataDir, env: {} }) });
    await again.stop();
  });
});
