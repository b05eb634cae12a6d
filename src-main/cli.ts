// `gatehouse serve`, `gatehouse keys ...` and `gatehouse routes ...` (CONTRACT §1).
import { parseArgs } from 'node:util';
import { startGatehouse, type RunningGatehouse } from './app.js';
import { runKeysCommand } from './cli-keys.js';
import { runRoutesCommand } from './cli-routes.js';
import { runDiscoverCommand } from './cli-discover.js';
import { runMigrateCommand } from './cli-migrate.js';
import { readyLines } from './cli-ready-lines.js';

const USAGE = `Usage:
  gatehouse serve [--host H] [--port P] [--data-dir D] [--allow-remote] [--database-url postgres://… [--redis-url redis://…]]
  gatehouse migrate --data-dir D --to postgres://…   (copies a stopped desktop data dir into an empty team database)
  gatehouse keys add --name N --provider SLUG [--custom-host URL] [--chat-only] [--cloud-* ...]   (secret on stdin)
  gatehouse keys list | keys revoke ID | keys rotate ID   (rotate: the new secret on stdin)
  gatehouse keys host NAME URL         (moves a key to another host; its secret again on stdin)
  gatehouse keys chat-only NAME [--on | --off]
  gatehouse gateway-keys add --name N | gateway-keys list | gateway-keys revoke ID
  gatehouse routes list | add --name N --match GLOB --target KEY[=MODEL][,option=value] ... | remove NAME | import FILE | export [--format json|yaml]
  gatehouse keys limits NAME [--rpm N] [--tpm N] [--daily-usd X] [--monthly-usd X] [--clear]
  gatehouse keys models NAME [--allow MODEL,GLOB,route:NAME,... | --all]
  gatehouse discover [--port N]... [--json]   (local model servers on this machine)
  gatehouse mcp add NAME (--command CMD [--arg A]... [--env K=V]... [--secret-env K]... | --url URL [--transport http|sse] [--header 'K: V']... [--secret-header K]...)
  gatehouse mcp list [--json] | mcp tools NAME | mcp remove NAME   (MCP servers served at /mcp; secrets on stdin)
  gatehouse keys mcp NAME --servers a,b | --all   (which MCP servers a key may use)
  gatehouse keys --help | routes --help   (every option of those commands)
Environment: GATEHOUSE_HOST, GATEHOUSE_PORT, GATEHOUSE_DATA_DIR, GATEHOUSE_MASTER_KEY, GATEHOUSE_ADMIN_TOKEN, GATEWAY_API_KEY,
  GATEHOUSE_DATABASE_URL, GATEHOUSE_REDIS_URL (team mode)`;

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'allow-remote': { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      'redis-url': { type: 'string' },
    },
    strict: true,
  });
  const port = values.port !== undefined ? Number(values.port) : undefined;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    process.stderr.write(`Invalid --port: ${values.port}\n`);
    return 2;
  }
  let running: RunningGatehouse;
  try {
    running = await startGatehouse({
      host: values.host,
      port,
      dataDir: values['data-dir'],
      allowRemote: values['allow-remote'],
      databaseUrl: values['database-url'],
      redisUrl: values['redis-url'],
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (error) {
    const err = error as NodeJS.ErrnoException;
    const message = err.code === 'EADDRINUSE' ? `Port ${(err as { port?: number }).port ?? port} is already in use; choose another with --port.` : err.message;
    process.stderr.write(`Gatehouse could not start: ${message}\n`);
    return 1;
  }
  process.stdout.write(`${readyLines(running.url, running.adminToken, running.adminTokenSource, process.stdout.isTTY === true).join('\n')}\n`);

  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // Another Ctrl-C (or SIGTERM) meanwhile must not end the process before the stop wrote the log.
      const again = () => process.stderr.write('Gatehouse is stopping: in-flight calls finish and the log is written first.\n');
      process.on('SIGINT', again);
      process.on('SIGTERM', again);
      running.stop().then(resolve, (error: unknown) => {
        process.stderr.write(`Error while stopping: ${(error as Error).message}\n`);
        resolve();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'serve') return await serve(rest);
    if (command === 'keys' || command === 'gateway-keys') {
      return await runKeysCommand(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
    }
    if (command === 'routes') return await runRoutesCommand(rest, { stdout: process.stdout, stderr: process.stderr, env: process.env });
    if (command === 'migrate') return await runMigrateCommand(rest, { stdout: process.stdout, stderr: process.stderr, env: process.env });
    // Loaded only for `mcp`: it brings the MCP SDK, which the other commands need not load.
    if (command === 'mcp') return await (await import('./cli-mcp.js')).runMcpCommand(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
    if (command === 'discover') return await runDiscoverCommand(rest, { stdout: process.stdout, stderr: process.stderr, env: process.env });
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    process.stderr.write(`Unknown command '${command}'.\n${USAGE}\n`);
    return 2;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
