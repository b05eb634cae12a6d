// The layering of docs/architecture.md, checked on every import of src-main: core below everything; the
// wire formats and providers (codecs/, providers/) above it; the gateway and the store above those, never
// importing each other, and neither importing the admin API; the admin API knows storage only by its
// contracts in core and declares the services it needs itself (admin/services.ts). A file at the top of
// src-main is a layer of its own, named for it: app.ts (which composes everything); cli.ts and the cli/ folder
// are the command line. The admin API imports no file at the top of src-main (the composition root or
// whatever it keeps there). A new import across a line fails here with the file and the import that crossed it.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..', '..');
const sources = join(root, 'src-main');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every relative module a file imports or re-exports (`import … from`, `export … from`, `import(…)`), as paths under src-main. */
export function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const match of text.matchAll(pattern)) found.push(relative(sources, resolve(dirname(file), match[1])).replace(/\\/g, '/'));
  return found;
}

/** The top-level folder of a path under src-main ('gateway', 'store', 'core' …), or a top file's name without its extension ('app', 'app-services'); cli.ts is in the cli layer. */
export const layerOf = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : path.replace(/\.[jt]sx?$/, ''));

/** Which layers each layer must not import. */
const ABOVE_THE_WIRE = ['gateway', 'mcp', 'store', 'store-postgres', 'admin', 'discovery', 'electron', 'cli', 'app'];
/** Only the entry points (cli.ts, electron/) import the composition root, and nothing but cli.ts imports the command line. */
const ENTRY_POINTS = ['cli', 'app'];
const FORBIDDEN: Record<string, readonly string[]> = {
  core: ['codecs', 'providers', 'catalog', ...ABOVE_THE_WIRE],
  // Wire formats know no provider: what both share (ProviderStreamError) lives in core.
  codecs: ['providers', 'catalog', ...ABOVE_THE_WIRE],
  providers: ['catalog', ...ABOVE_THE_WIRE],
  // Prices and context windows: read by the gateway and the store alike, so above neither; prices a canonical Usage.
  catalog: ['providers', ...ABOVE_THE_WIRE],
  gateway: ['store', 'store-postgres', 'admin', 'mcp', ...ENTRY_POINTS],
  // The MCP gateway: beside gateway/ (whose auth and browser guard it uses), never a store or the admin API.
  mcp: ['store', 'store-postgres', 'admin', ...ENTRY_POINTS],
  store: ['gateway', 'admin', 'store-postgres', 'mcp', 'discovery', ...ENTRY_POINTS],
  // Team mode's PostgreSQL store: a second implementation of the same contracts, reusing store/'s row formats.
  'store-postgres': ['gateway', 'admin', 'mcp', 'discovery', ...ENTRY_POINTS],
  // The admin API reads and writes storage through the contracts in core (AdminServices); app.ts picks the store.
  admin: ['store', 'store-postgres', ...ENTRY_POINTS],
  // Local model servers found by probing ports: it knows the wire, never storage, the gateway or the admin API.
  discovery: ['gateway', 'mcp', 'store', 'store-postgres', 'admin', 'electron', ...ENTRY_POINTS],
  // The desktop shell starts the composition root (app.ts), never the command line.
  electron: ['cli'],
};

/** Layers that import no file at the top of src-main: the admin API needs only what admin/services.ts declares. */
const NO_ROOT_FILES = ['admin'];
const isRootFile = (path: string): boolean => !path.includes('/');

/** Every forbidden import of these files (paths under src-main, with their text). */
export function crossingsOf(files: readonly { from: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { from, text } of files) {
    const layer = layerOf(from);
    const forbidden = FORBIDDEN[layer] ?? [];
    const noRootFiles = NO_ROOT_FILES.includes(layer);
    for (const imported of importsOf(join(sources, from), text)) {
      if (forbidden.includes(layerOf(imported)) || (noRootFiles && isRootFile(imported))) found.push(`${from} imports ${imported}`);
    }
  }
  return found;
}

function crossings(): string[] {
  return crossingsOf(sourceFiles(sources).map((file) => ({ from: relative(sources, file).replace(/\\/g, '/'), text: readFileSync(file, 'utf8') })));
}

describe('layering of src-main', () => {
  it('has no import across a forbidden line (gateway ↛ store/admin, store ↛ gateway/admin, admin ↛ store, codecs/providers/core ↛ anything above them, nothing below an entry point ↛ app.ts or cli/)', () => {
    expect(crossings()).toEqual([]);
  });

  it('sees the imports it checks: a made-up crossing is found', () => {
    const file = join(sources, 'gateway', 'example.ts');
    expect(importsOf(file, "import { x } from '../store/keys.js';\nexport { y } from '../admin/router.js';\nconst z = await import('../store/usage.js');"))
      .toEqual(['store/keys.js', 'admin/router.js', 'store/usage.js']);
  });

  it('finds an admin file importing a file at the top of src-main (app-services.ts, app.ts), and none for admin/services.ts', () => {
    expect(crossingsOf([
      { from: 'admin/key-routes.ts', text: "import type { AppServices } from '../app-services.js';\nimport type { AdminServices } from './services.js';" },
      { from: 'admin/router.ts', text: "import { startApp } from '../app.js';" },
    ])).toEqual(['admin/key-routes.ts imports app-services.js', 'admin/router.ts imports app.js']);
  });

  it('names a file at the top of src-main as a layer of its own, and cli.ts with the cli/ folder', () => {
    const file = join(sources, 'admin', 'example.ts');
    expect(importsOf(file, "import { a } from '../app.js';\nimport type { B } from '../app-services.js';\nimport { c } from '../cli/keys.js';\nimport { d } from '../app';").map(layerOf))
      .toEqual(['app', 'app-services', 'cli', 'app']);
    expect(layerOf('cli.ts')).toBe('cli');
  });
});
