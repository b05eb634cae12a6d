// `gatehouse <command> …` (CONTRACT §1): the usage, and which file runs each command.
// This file only dispatches: each command group is a file of its own, and none imports another.
import { runServeCommand } from './serve.js';
import { KEYS_USAGE, runKeysCommand } from './keys.js';
import { runLimitsCommand } from './limits.js';
import { runModelsCommand } from './models.js';
import { runRoutesCommand } from './routes.js';
import { runDiscoverCommand } from './discover.js';
import { runMigrateCommand } from './migrate.js';
import { runReportingErrors, type CommandIO, type CommandIOWithInput } from './command.js';

/** The settings of a key that have a file of their own; the rest of `keys` and `gateway-keys` is keys.ts. */
const KEY_SETTINGS: Readonly<Record<string, (args: string[], io: CommandIO) => Promise<number>>> = { limits: runLimitsCommand, models: runModelsCommand };

const USAGE = `Usage:
  gatehouse serve [--host H] [--port P] [--data-dir D] [--allow-remote] [--database-url postgres://… [--redis-url redis://…] [--instance-name NAME]]
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
  gatehouse keys mcp NAME --servers a,b | --all | --tools server:tool,… | --default allow|deny|global   (which MCP servers and tools a key may use)
  gatehouse keys --help | routes --help   (every option of those commands)
Environment: GATEHOUSE_HOST, GATEHOUSE_PORT, GATEHOUSE_DATA_DIR, GATEHOUSE_MASTER_KEY, GATEHOUSE_ADMIN_TOKEN, GATEWAY_API_KEY,
  GATEHOUSE_DATABASE_URL, GATEHOUSE_REDIS_URL (team mode)`;

const PROCESS_IO: CommandIOWithInput = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };

/** Runs one command line; the exit code is the answer. Tests pass their own streams and environment. */
export async function main(argv: string[], io: CommandIOWithInput = PROCESS_IO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'serve') return await runServeCommand(rest);
    if (command === 'keys' || command === 'gateway-keys') {
      const setting = Object.hasOwn(KEY_SETTINGS, rest[0] ?? '') ? KEY_SETTINGS[rest[0]] : undefined;
      if (setting) return await runReportingErrors(KEYS_USAGE, io, () => setting(rest.slice(1), io));
      return await runKeysCommand(argv, io);
    }
    if (command === 'routes') return await runRoutesCommand(rest, io);
    if (command === 'migrate') return await runMigrateCommand(rest, io);
    // Loaded only for `mcp`: it brings the MCP SDK, which the other commands need not load.
    if (command === 'mcp') return await (await import('./mcp.js')).runMcpCommand(rest, io);
    if (command === 'discover') return await runDiscoverCommand(rest, io);
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    io.stderr.write(`Unknown command '${command}'.\n${USAGE}\n`);
    return 2;
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
}

