// `node --import tsx bench/profile-diff.ts <a.cpuprofile> <requests a> <b.cpuprofile> <requests b>`: two
// serving-thread CPU profiles (`npm run bench -- --profile`, or `--cpu-prof` on two builds under the same
// load) compared per request. On the shared machine one build's process may run slower than the other's
// for reasons outside its code, so each profile is also scaled so that undici's own self time per request
// matches the second's: undici's code is the same in both builds, and what remains apart is Gatehouse's.
// Prints self time by kind of code, then the functions whose self time differs most (µs per request, idle
// time left out; each profile's start-up is in it too, so give many requests).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code comes from: Gatehouse's bundle, a package, Node itself, or V8's own entries (GC, program). */
function kindOf({ url, functionName }: ProfileNode['callFrame']): string {
  if (url.includes('gatehouse-bench')) return 'Gatehouse';
  if (url.includes('/undici/') || url.startsWith('wasm')) return 'undici';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  if (url.startsWith('node:')) return 'node';
  return functionName || '(unnamed)';
}

/** A function's name, without the bundle's chunk file (its hash differs between builds). */
function nameOf({ url, functionName, lineNumber }: ProfileNode['callFrame']): string {
  const where = url.includes('gatehouse-bench') ? 'Gatehouse' : url.replace(/.*node_modules\//, '');
  return `${functionName || '(anonymous)'} ${where}${where === 'Gatehouse' || !where ? '' : `:${lineNumber + 1}`}`;
}

function selfTimes(file: string, requests: number): { byKind: Map<string, number>; byFunction: Map<string, number> } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byKind = new Map<string, number>();
  const byFunction = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const us = (profile.timeDeltas[index] ?? 0) / requests;
    byKind.set(kindOf(frame), (byKind.get(kindOf(frame)) ?? 0) + us);
    byFunction.set(nameOf(frame), (byFunction.get(nameOf(frame)) ?? 0) + us);
  });
  return { byKind, byFunction };
}

const [fileA, requestsA, fileB, requestsB] = process.argv.slice(2);
if (!fileB || !(Number(requestsA) > 0) || !(Number(requestsB) > 0)) {
  console.error('usage: bench/profile-diff.ts <a.cpuprofile> <requests a> <b.cpuprofile> <requests b>');
  process.exit(2);
}
const a = selfTimes(fileA, Number(requestsA));
const b = selfTimes(fileB, Number(requestsB));
const scale = (b.byKind.get('undici') ?? NaN) / (a.byKind.get('undici') ?? NaN);
const total = (map: Map<string, number>) => [...map.values()].reduce((sum, value) => sum + value, 0);
const row = (label: string, x: number, y: number) => `${x.toFixed(1).padStart(9)} ${(x * scale).toFixed(1).padStart(9)} ${y.toFixed(1).padStart(9)}  ${label}`;

console.log(`µs per request: A, A scaled to B's undici (×${scale.toFixed(2)}), B`);
console.log(row('all (idle left out)', total(a.byKind), total(b.byKind)));
const kinds = [...new Set([...a.byKind.keys(), ...b.byKind.keys()])].sort((x, y) => (b.byKind.get(y) ?? 0) - (b.byKind.get(x) ?? 0));
for (const kind of kinds.slice(0, 15)) console.log(row(kind, a.byKind.get(kind) ?? 0, b.byKind.get(kind) ?? 0));
console.log('\nfunctions whose self time differs most (scaled A − B):');
const names = [...new Set([...a.byFunction.keys(), ...b.byFunction.keys()])];
const delta = (name: string) => (a.byFunction.get(name) ?? 0) * scale - (b.byFunction.get(name) ?? 0);
for (const name of names.sort((x, y) => Math.abs(delta(y)) - Math.abs(delta(x))).slice(0, 30)) console.log(row(name, a.byFunction.get(name) ?? 0, b.byFunction.get(name) ?? 0));
