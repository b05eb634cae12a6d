#!/usr/bin/env node
// Runs the built CLI (out/main/cli.js, made by `npm install` / `npm run build`).
import { existsSync } from 'node:fs';

const cli = new URL('../out/main/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('Gatehouse is not built yet: run `npm run build` in the Gatehouse folder.\n');
  process.exit(1);
}
await import(cli.href);
