import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { abiFromSymbols, describeStartupError, sqliteBindingFromEnv, SQLITE_BINDING_ENV } from '../../../src-main/electron/native-binding';

describe('the SQLite binding the desktop app loads', () => {
  it('reads the ABI from nm -D output', () => {
    expect(abiFromSymbols('000000000001a450 T node_register_module_v115\n')).toBe(115);
    expect(abiFromSymbols('0000 T something_else\n')).toBeNull();
  });

  it('sees the Node ABI in the shared node_modules build', (context) => {
    const addon = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    const nm = spawnSync('nm', ['-D', addon], { encoding: 'utf8' });
    if (nm.status !== 0) context.skip();
    expect(abiFromSymbols(nm.stdout)).toBe(Number(process.versions.modules));
  });

  it('uses no override when GATEHOUSE_SQLITE_BINDING is unset, and refuses one that does not exist', () => {
    expect(sqliteBindingFromEnv({})).toBeUndefined();
    expect(() => sqliteBindingFromEnv({ [SQLITE_BINDING_ENV]: '/nonexistent/better_sqlite3.node' })).toThrow(/npm start/);
  });

  it('explains an ABI mismatch with what to run instead', () => {
    const error = new Error(
      "The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 150.",
    );
    const message = describeStartupError(error);
    expect(message).toContain('npm start');
    expect(message).toContain('npx gatehouse serve');
    expect(describeStartupError(new Error('disk full'))).toBe('disk full');
  });

  it('suggests unlocking the keyring when the store is locked by the OS keychain', () => {
    const locked = Object.assign(new Error("The stored secrets are protected by the desktop app's OS keychain, but this process uses the key file."), { name: 'KeyStoreLockedError' });
    expect(describeStartupError(locked)).toMatch(/unlock it and start Gatehouse again/);
  });
});
