// `gatehouse discover [--port N]... [--json]` (CONTRACT §1): the local model servers on this
// machine's loopback ports, one a line, or as JSON for scripts. Every port is probed at once with a
// short deadline, so it finishes within a second or so whatever the ports hold.
import { parseArgs } from 'node:util';
import { DEFAULT_PROBE_TIMEOUT_MS, discoverLocalServers } from '../discovery/probe.js';
import { DISCOVERY_PORTS_ENV, DISCOVERY_TIMEOUT_ENV, isPort, probePorts, probeTimeoutFrom, usualPorts } from '../discovery/ports.js';
import type { CommandIO } from './command.js';

export const DISCOVER_USAGE = `Usage: gatehouse discover [--port N]... [--json] [--timeout MS]
  Lists the model servers answering on this machine's loopback ports: Ollama 11434, LM Studio 1234,
  llama.cpp server and LocalAI 8080, vLLM 8000, Jan 1337, and each --port given.
  One server a line: kind, base URL, models (comma-separated). --json prints [{kind, url, version, models}].
  ${DISCOVERY_PORTS_ENV} replaces the usual ports (comma-separated); --timeout or ${DISCOVERY_TIMEOUT_ENV}
  sets the deadline per port (default ${DEFAULT_PROBE_TIMEOUT_MS} ms).`;

/** The longest deadline per port a user may ask for: the command must still finish promptly. */
const MAX_TIMEOUT_MS = 10_000;

export async function runDiscoverCommand(args: string[], io: CommandIO): Promise<number> {
  let values: { port?: string[]; json?: boolean; timeout?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${DISCOVER_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${DISCOVER_USAGE}\n`);
    return 0;
  }
  const extra: number[] = [];
  for (const text of values.port ?? []) {
    const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!isPort(port)) {
      io.stderr.write(`Invalid --port: ${text} (a port is 1-65535)\n`);
      return 2;
    }
    extra.push(port);
  }
  let timeoutMs = probeTimeoutFrom(io.env, DEFAULT_PROBE_TIMEOUT_MS);
  if (values.timeout !== undefined) {
    timeoutMs = /^\d+$/.test(values.timeout) ? Number(values.timeout) : Number.NaN;
    if (!(timeoutMs >= 50 && timeoutMs <= MAX_TIMEOUT_MS)) {
      io.stderr.write(`Invalid --timeout: ${values.timeout} (milliseconds, 50-${MAX_TIMEOUT_MS})\n`);
      return 2;
    }
  }
  let usual: number[];
  try {
    usual = usualPorts(io.env);
  } catch (error) {
    io.stderr.write(`Invalid ${DISCOVERY_PORTS_ENV}: ${(error as Error).message}\n`);
    return 2;
  }
  const ports = probePorts(usual, extra);
  const servers = await discoverLocalServers({ ports, timeoutMs });

  if (values.json) {
    const list = servers.map(({ kind, url, version, models }) => ({ kind, url, version, models }));
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  if (!servers.length) {
    io.stderr.write(`No local model server answered on ${ports.length ? `port${ports.length > 1 ? 's' : ''} ${ports.join(', ')}` : 'any port (none to probe)'}.\n`);
    return 0;
  }
  const kindWidth = Math.max(...servers.map((server) => server.kind.length));
  const urlWidth = Math.max(...servers.map((server) => server.url.length));
  for (const server of servers) {
    const models = server.models.length ? server.models.map((model) => model.id).join(', ') : '(no models)';
    io.stdout.write(`${server.kind.padEnd(kindWidth)}  ${server.url.padEnd(urlWidth)}  ${models}\n`);
  }
  return 0;
}
