#!/usr/bin/env node
// What `npm start` runs: build the app, find the Electron binary, make an Electron-ABI copy of
// better-sqlite3 in a cache folder (the shared node_modules copy stays built for Node, which the
// CLI and the tests load), then launch Electron with that copy named in GATEHOUSE_SQLITE_BINDING.
//
//   node scripts/start-desktop.mjs [--skip-build] [--prepare-only] [-- app arguments]
//
// --prepare-only stops before launching and prints {"electron": ..., "binding": ...} as the last
// line of stdout (the Electron e2e test uses it).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SQLITE_BINDING_ENV = 'GATEHOUSE_SQLITE_BINDING';
const ELECTRON_HEADERS_URL = 'https://electronjs.org/headers';

const HEADLESS_HINT =
  'To run Gatehouse without Electron (same gateway, same UI in your browser, same data folder):\n' +
  '    npx gatehouse serve\n' +
  'then open the address it prints.';

class StartError extends Error {}

/** Where the electron npm package would keep its binary, without triggering its download. */
export function findElectronBinary(root = ROOT, env = process.env) {
  const packageDir = join(root, 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  const relativePath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const candidate = env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relativePath || 'electron')
    : relativePath
      ? join(packageDir, 'dist', relativePath)
      : null;
  return candidate && existsSync(candidate) ? candidate : null;
}

/** The ABI a native addon was built for, from `nm -D` output or the file's own bytes. */
export function abiFromSymbols(text) {
  const match = /node_register_module_v(\d+)/.exec(text);
  return match ? Number(match[1]) : null;
}

/**
 * Reads the ABI of a .node file. `nm -D` where it exists (Linux); otherwise the export name is
 * found in the file itself, which works for ELF, Mach-O and PE alike.
 */
export function readAddonAbi(file) {
  const nm = spawnSync('nm', ['-D', file], { encoding: 'utf8' });
  if (nm.status === 0) {
    const abi = abiFromSymbols(nm.stdout);
    if (abi !== null) return abi;
  }
  return abiFromSymbols(readFileSync(file).toString('latin1'));
}

/** One cached build per Electron version, better-sqlite3 version and platform. */
export function bindingCachePath(root, electronVersion, sqliteVersion, platform = process.platform, arch = process.arch) {
  return join(root, 'node_modules', '.cache', 'gatehouse-electron', electronVersion, `better-sqlite3-${sqliteVersion}-${platform}-${arch}.node`);
}

/**
 * The environment for node-gyp when it builds for Electron. A `nodedir` from npm's config (set on
 * some machines) would point node-gyp at Node's headers: the build would succeed and produce the
 * Node ABI again. Drop every such override so --target and --dist-url decide.
 */
export function electronBuildEnv(env) {
  const clean = {};
  for (const [name, value] of Object.entries(env)) {
    if (/^npm_config_(nodedir|target|dist_url|disturl|runtime|arch|build_from_source)$/i.test(name)) continue;
    if (value !== undefined) clean[name] = value;
  }
  return clean;
}

/** The arguments after our own flags go to the app (e.g. `npm start -- --port 9000`). */
export function parseStartArguments(argv) {
  const options = { skipBuild: false, prepareOnly: false, appArgs: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--skip-build') options.skipBuild = true;
    else if (arg === '--prepare-only') options.prepareOnly = true;
    else if (arg === '--') {
      options.appArgs.push(...argv.slice(i + 1));
      break;
    } else options.appArgs.push(arg);
  }
  return options;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function say(line) {
  process.stderr.write(`[gatehouse] ${line}\n`);
}

function build(root) {
  say('Building (electron-vite build)...');
  const result = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: ['ignore', 2, 2], shell: process.platform === 'win32' });
  if (result.status !== 0) throw new StartError('The build failed (see above).');
}

/**
 * Finds the Electron binary; when the package has not fetched it yet, lets the package do so
 * (that is its normal lazy download) in a child process, so a failure is one clear message here.
 */
function locateElectron(root) {
  const found = findElectronBinary(root);
  if (found) return found;
  say('Looking for the Electron binary (the electron package downloads it on first use)...');
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('electron')))"], {
    cwd: root,
    encoding: 'utf8',
    timeout: 10 * 60 * 1000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const reported = probe.status === 0 ? probe.stdout.trim() : '';
  if (reported && existsSync(reported)) return reported;
  const reason = probe.status === 0 ? `it reports ${reported || 'no path'}, which does not exist` : firstErrorLine(probe.stderr) || 'its download failed';
  throw new StartError(`No Electron binary is available (${reason}).\nThe desktop app needs it; this machine cannot get it (no download access?).\n\n${HEADLESS_HINT}`);
}

/** The root cause in a Node stack dump: its first "SomethingError: ..." line. */
export function firstErrorLine(text) {
  const line = (text || '').split('\n').find((candidate) => /^\w*Error: /.test(candidate.trim()));
  return line ? line.trim() : '';
}

function nodeGypCommand(env) {
  // npm ships node-gyp and names it in npm_config_node_gyp for scripts; otherwise look next to npm.
  const candidates = [env.npm_config_node_gyp, join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')];
  const script = candidates.find((candidate) => candidate && existsSync(candidate));
  return script ? { command: process.execPath, prefix: [script] } : { command: 'npx', prefix: ['--yes', 'node-gyp'] };
}

/** An addon built for Electron: its ABI is Electron's (when known), and never the running Node's. */
export function isElectronAbi(file, expectedAbi) {
  if (!existsSync(file)) return false;
  const abi = readAddonAbi(file);
  return abi !== null && abi !== Number(process.versions.modules) && (expectedAbi === null || abi === expectedAbi);
}

/** better-sqlite3's own installer, asked for the Electron build; false when there is none to download. */
function fetchPrebuilt(copy, sqliteDir, electronVersion) {
  let bin;
  try {
    bin = createRequire(join(sqliteDir, 'package.json')).resolve('prebuild-install/bin.js');
  } catch {
    return false;
  }
  say(`Fetching the prebuilt better-sqlite3 for Electron ${electronVersion}...`);
  const result = spawnSync(process.execPath, [bin, '--runtime=electron', `--target=${electronVersion}`, `--arch=${process.arch}`], {
    cwd: copy,
    stdio: ['ignore', 2, 2],
    env: electronBuildEnv(process.env),
    timeout: 5 * 60 * 1000,
  });
  return result.status === 0;
}

/** Builds better_sqlite3.node for Electron in a temporary copy of the package; returns the cached path. */
export function ensureElectronSqlite(root, { rebuild = false } = {}) {
  const electronPackage = join(root, 'node_modules', 'electron');
  const electronVersion = readJson(join(electronPackage, 'package.json')).version;
  const abiFile = join(electronPackage, 'abi_version');
  const expectedAbi = existsSync(abiFile) ? Number(readFileSync(abiFile, 'utf8').trim()) : null;
  const sqliteDir = dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json'));
  const sqliteVersion = readJson(join(sqliteDir, 'package.json')).version;
  const cached = bindingCachePath(root, electronVersion, sqliteVersion);

  if (!rebuild && isElectronAbi(cached, expectedAbi)) return cached;

  const work = mkdtempSync(join(tmpdir(), 'gatehouse-sqlite-'));
  try {
    const copy = join(work, 'better-sqlite3');
    // The package's own build/ holds the Node build; leaving it out keeps node-gyp from reusing it.
    cpSync(sqliteDir, copy, { recursive: true, filter: (source) => relative(sqliteDir, source).split(sep)[0] !== 'build' });
    const built = join(copy, 'build', 'Release', 'better_sqlite3.node');
    // First the prebuilt binary better-sqlite3 publishes for this Electron (no compiler needed),
    // then a compile against Electron's headers.
    if (!fetchPrebuilt(copy, sqliteDir, electronVersion) || !isElectronAbi(built, expectedAbi)) {
      rmSync(join(copy, 'build'), { recursive: true, force: true });
      say(`Compiling better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (ABI ${expectedAbi ?? '?'}); this takes a minute or two the first time...`);
      const gyp = nodeGypCommand(process.env);
      const args = [...gyp.prefix, 'rebuild', '--release', `--target=${electronVersion}`, `--arch=${process.arch}`, `--dist-url=${ELECTRON_HEADERS_URL}`];
      const result = spawnSync(gyp.command, args, { cwd: copy, stdio: ['ignore', 2, 2], env: electronBuildEnv(process.env), shell: process.platform === 'win32' && gyp.command === 'npx' });
      if (result.status !== 0 || !existsSync(built)) {
        throw new StartError(
          `Building better-sqlite3 for Electron failed${result.error ? ` (${result.error.message})` : ''}.\n` +
            `There is no prebuilt binary for Electron ${electronVersion} to download, and compiling needs a C++ toolchain and Electron's headers from ${ELECTRON_HEADERS_URL}.\n\n${HEADLESS_HINT}`,
        );
      }
    }
    // Rebuild tools can report success and leave a Node build behind: check what was produced.
    const abi = readAddonAbi(built);
    if (!isElectronAbi(built, expectedAbi)) {
      throw new StartError(`The build produced ABI ${abi ?? 'unknown'}, not Electron ${electronVersion}'s ABI ${expectedAbi ?? '(not Node ' + process.versions.modules + ')'}.`);
    }
    mkdirSync(dirname(cached), { recursive: true });
    const staging = `${cached}.${process.pid}.tmp`;
    copyFileSync(built, staging);
    renameSync(staging, cached);
    say(`Electron build of better-sqlite3 cached at ${relative(root, cached)} (ABI ${abi}).`);
    return cached;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function launch(electron, binding, appArgs, root) {
  const env = { ...process.env, [SQLITE_BINDING_ENV]: binding };
  // Set by some tools; it would make the binary behave as plain Node and ignore the app.
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(electron, [join(root, 'out', 'main', 'index.js'), ...appArgs], { cwd: root, stdio: 'inherit', env });
  // Ctrl+C reaches Electron through the terminal too; forwarding covers `kill <this pid>`.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

export function main(argv = process.argv.slice(2), root = ROOT) {
  const options = parseStartArguments(argv);
  try {
    if (!options.skipBuild) build(root);
    const electron = locateElectron(root);
    const binding = ensureElectronSqlite(root);
    if (options.prepareOnly) {
      process.stdout.write(`${JSON.stringify({ electron, binding })}\n`);
      return;
    }
    launch(electron, binding, options.appArgs, root);
  } catch (error) {
    if (!(error instanceof StartError)) throw error;
    process.stderr.write(`\nGatehouse desktop cannot start: ${error.message}\n`);
    process.exit(1);
  }
}

// Run only when executed, so tests can import the helpers above.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
