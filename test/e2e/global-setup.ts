// Builds the app before the browser tests when the build is missing or older than the sources:
// the tests run the built CLI (out/main) serving the built UI (out/renderer).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');

function newestModification(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestModification(join(path, entry)));
  return newest;
}

function builtAt(path: string): number {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

export default function globalSetup(): void {
  const sourcesChangedAt = Math.max(
    newestModification(join(root, 'src-main')),
    newestModification(join(root, 'src-renderer')),
    builtAt(join(root, 'electron.vite.config.ts')),
  );
  const buildFinishedAt = Math.min(builtAt(join(root, 'out', 'main', 'cli.js')), builtAt(join(root, 'out', 'renderer', 'index.html')));
  if (buildFinishedAt > sourcesChangedAt) return;
  execFileSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
}
