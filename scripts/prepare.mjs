// Builds the app after `npm install` so `npx gatehouse serve` and `npm start` find it ready.
// Skipped when the sources are absent (installing Gatehouse as a dependency of something else).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (!existsSync(new URL('../src-main/cli.ts', import.meta.url))) process.exit(0);
const result = spawnSync('npx', ['electron-vite', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
