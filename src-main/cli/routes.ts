// `gatehouse routes list|add|remove|import|export` (CONTRACT §1). Writes through the server's route
// repository (storage.ts), as `gatehouse keys` does; a running server picks the change up within a second.
// Routes files are JSON or YAML with the same fields; import is all or nothing, and its errors name the
// file's line.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Route, RouteRepository } from '../core/route-repository.js';
import { GatewayError, GatewayErrorList } from '../core/errors.js';
import type { TargetInput } from '../core/routes/types.js';
import { runReportingErrors, UsageError, type CommandIO } from './command.js';
import { STORAGE_OPTIONS, storagePlace, withStorage, type StorageFlags } from './storage.js';


export const ROUTES_USAGE = `Usage:
  gatehouse routes list [--json]
  gatehouse routes add --name N --match MODEL_OR_GLOB [--strategy fallback|balance] --target SPEC [--target SPEC ...]
      SPEC is KEY[=MODEL][,timeout_ms=N][,weight=W][,min_prompt_tokens=N][,thinking=true|false][,tools=true|false]
      KEY is a virtual key's name; without =MODEL the requested model name is sent. Targets are tried in the order given.
      Example: --target local-ollama=qwen3-coder:30b,timeout_ms=30000 --target anthropic-main
  gatehouse routes remove NAME_OR_ID
  gatehouse routes import FILE        (JSON or YAML; replaces every route, all or nothing)
  gatehouse routes export [--format json|yaml]
Every command takes --data-dir D (default: GATEHOUSE_DATA_DIR, else the desktop app's folder).
Team mode: --database-url postgres://… (else GATEHOUSE_DATABASE_URL) and GATEHOUSE_MASTER_KEY, as the team's instances run with.`;

export async function runRoutesCommand(args: string[], io: CommandIO): Promise<number> {
  const [subcommand, ...options] = args[0] === 'routes' ? args.slice(1) : args;
  return runReportingErrors(ROUTES_USAGE, io, async () => {
    switch (subcommand) {
      case 'list':
        return await listRoutes(options, io);
      case 'add':
        return await addRoute(options, io);
      case 'remove':
        return await removeRoute(options, io);
      case 'import':
        return await importRoutes(options, io, await import('yaml'));
      case 'export':
        return await exportRoutes(options, io, await import('yaml'));
      case 'help':
      case '--help':
        io.stdout.write(`${ROUTES_USAGE}\n`);
        return 0;
      default:
        throw new UsageError(subcommand ? `Unknown command 'routes ${subcommand}'.` : "'routes' needs a command.");
    }
  });
}

const commonOptions = STORAGE_OPTIONS;

/** The route store of the command's storage, closed afterwards; `undefined` for a data dir without a database when `create` is false. */
function withRoutes<T>(flags: StorageFlags, io: CommandIO, create: boolean, use: (store: RouteRepository | undefined) => Promise<T>): Promise<T> {
  return withStorage(storagePlace(flags, io.env), io.env, create, async (storage) => use(storage && (await storage.routes())));
}

function describeTarget(target: TargetInput): string {
  const options = [
    target.timeout_ms !== undefined ? `timeout ${target.timeout_ms} ms` : '',
    target.weight !== undefined ? `weight ${target.weight}` : '',
    target.when?.min_prompt_tokens !== undefined ? `≥ ${target.when.min_prompt_tokens} prompt tokens` : '',
    target.when?.thinking !== undefined ? (target.when.thinking ? 'thinking' : 'no thinking') : '',
    target.when?.tools !== undefined ? (target.when.tools ? 'tools' : 'no tools') : '',
  ].filter(Boolean);
  return `${target.key}${target.model ? ` → ${target.model}` : ''}${options.length ? ` (${options.join(', ')})` : ''}`;
}

async function listRoutes(args: string[], io: CommandIO): Promise<number> {
  const { values } = parseArgs({ args, options: { ...commonOptions, json: { type: 'boolean', default: false } }, strict: true });
  const routes: Route[] = await withRoutes(values, io, false, async (store) => (await store?.list()) ?? []);
  if (values.json) {
    io.stdout.write(`${JSON.stringify(routes, null, 2)}\n`);
    return 0;
  }
  if (routes.length === 0) {
    io.stdout.write('No routes. Add one with `gatehouse routes add` or `gatehouse routes import FILE`.\n');
    return 0;
  }
  for (const [index, route] of routes.entries()) {
    io.stdout.write(`${index + 1}. ${route.name}  ${route.match}  ${route.strategy}  (${route.id})\n`);
    for (const target of route.targets) io.stdout.write(`     ${describeTarget(target)}\n`);
  }
  return 0;
}

const BOOLEAN_OPTIONS = new Set(['thinking', 'tools']);
const NUMBER_OPTIONS = new Set(['timeout_ms', 'weight', 'min_prompt_tokens']);

/** `KEY[=MODEL][,name=value ...]` → a target; the route store checks the values. */
export function parseTargetSpec(spec: string): Record<string, unknown> {
  const [head, ...options] = spec.split(',');
  const equals = head.indexOf('=');
  const key = (equals === -1 ? head : head.slice(0, equals)).trim();
  const model = equals === -1 ? undefined : head.slice(equals + 1).trim();
  if (!key) throw new UsageError(`--target '${spec}': start with a virtual key's name`);
  const target: Record<string, unknown> = { key, ...(model ? { model } : {}) };
  const when: Record<string, unknown> = {};
  for (const option of options) {
    const [name, value = ''] = option.split('=').map((part) => part.trim());
    if (BOOLEAN_OPTIONS.has(name)) {
      if (value !== 'true' && value !== 'false') throw new UsageError(`--target '${spec}': ${name} must be true or false`);
      when[name] = value === 'true';
    } else if (NUMBER_OPTIONS.has(name)) {
      if (value === '' || !Number.isFinite(Number(value))) throw new UsageError(`--target '${spec}': ${name} must be a number`);
      if (name === 'min_prompt_tokens') when[name] = Number(value);
      else target[name] = Number(value);
    } else {
      throw new UsageError(`--target '${spec}': unknown option '${name}' (expected timeout_ms, weight, min_prompt_tokens, thinking, tools)`);
    }
  }
  if (Object.keys(when).length) target.when = when;
  return target;
}

async function addRoute(args: string[], io: CommandIO): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...commonOptions, name: { type: 'string' }, match: { type: 'string' }, strategy: { type: 'string', default: 'fallback' }, target: { type: 'string', multiple: true } },
    strict: true,
  });
  if (!values.name) throw new UsageError('routes add needs --name.');
  if (!values.match) throw new UsageError('routes add needs --match (a model name, or a glob such as claude-haiku-*).');
  if (!values.target?.length) throw new UsageError('routes add needs at least one --target.');
  const input = { name: values.name, match: values.match, strategy: values.strategy, targets: values.target.map(parseTargetSpec) };
  const route = await withRoutes(values, io, true, async (store) => store!.create(input));
  io.stdout.write(`Added route '${route.name}' (${route.id}) at position ${route.position + 1}.\n`);
  return 0;
}

async function removeRoute(args: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...commonOptions }, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('routes remove needs one route name or id.');
  const wanted = positionals[0];
  const removed = await withRoutes(values, io, false, async (store) => {
    const route = (await store?.list())?.find((candidate) => candidate.id === wanted || candidate.name === wanted);
    if (!store || !route) throw new Error(`No route named '${wanted}'`);
    await store.remove(route.id);
    return route;
  });
  io.stdout.write(`Removed route '${removed.name}'.\n`);
  return 0;
}

/** The path segments of a param such as `routes[1].targets[0].key`. */
function pathOf(param: string): (string | number)[] {
  return [...param.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : match[1])).filter((part) => part !== '$');
}

/**
 * The YAML library, loaded by the two commands that read or write files: `gatehouse serve` shares this
 * module and would otherwise carry its ~2.6 MB for nothing.
 */
type Yaml = typeof import('yaml');

/** Reads a routes file (JSON or YAML: YAML 1.2 reads JSON too) and checks it; errors name the line. */
function readRoutesFile(yaml: Yaml, text: string, fileName: string): { value: unknown; lineOf: (param: string | null) => number | null } {
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (param: string | null): number | null => {
    if (!param) return null;
    // The deepest node the file has on that path (an absent field: the object that lacks it).
    let path = pathOf(param);
    while (path.length) {
      const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
      if (node && typeof node === 'object' && node.range) return lineCounter.linePos(node.range[0]).line;
      path = path.slice(0, -1);
    }
    return null;
  };
  if (document.errors.length) {
    const error = document.errors[0];
    const line = error.linePos?.[0].line ?? lineCounter.linePos(error.pos[0]).line;
    throw new Error(`${fileName}:${line}: not valid JSON or YAML: ${error.message.split('\n')[0]}`);
  }
  return { value: document.toJS({ maxAliasCount: 100 }), lineOf };
}

async function importRoutes(args: string[], io: CommandIO, yaml: Yaml): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...commonOptions }, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('routes import needs one FILE.');
  const file = positionals[0];
  const { value, lineOf } = readRoutesFile(yaml, readFileSync(file, 'utf8'), file);
  const routes = await withRoutes(values, io, true, async (store) => {
    try {
      return await store!.replaceAll(value);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      // Every problem of the file, each at its line with the field's path (for a search in the file).
      const problems = error instanceof GatewayErrorList ? error.errors : [error];
      const lines = problems.map((problem) => {
        const line = lineOf(problem.param);
        return `${file}${line ? `:${line}` : ''}: ${problem.param ? `${problem.param}: ` : ''}${problem.message}`;
      });
      throw new Error(`${lines.join('\n')}\nNothing was changed${problems.length > 1 ? ` (${problems.length} problems)` : ''}.`);
    }
  });
  io.stdout.write(`Imported ${routes.length} route${routes.length === 1 ? '' : 's'} from ${file}; they replace the ones before.\n`);
  return 0;
}

async function exportRoutes(args: string[], io: CommandIO, yaml: Yaml): Promise<number> {
  const { values } = parseArgs({ args, options: { ...commonOptions, format: { type: 'string', default: 'json' } }, strict: true });
  if (values.format !== 'json' && values.format !== 'yaml') throw new UsageError("--format must be 'json' or 'yaml'.");
  const file = await withRoutes(values, io, false, async (store) => (await store?.exportFile()) ?? { routes: [] });
  io.stdout.write(values.format === 'yaml' ? yaml.stringify(file) : `${JSON.stringify(file, null, 2)}\n`);
  return 0;
}
