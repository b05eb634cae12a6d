// Which loopback ports discovery probes: the usual ports of the well-known local servers, the
// user's extra ports, never the gateway's own.

/** Ollama, LM Studio, llama.cpp server and LocalAI, vLLM, Jan. */
export const USUAL_PORTS: readonly number[] = [11434, 1234, 8080, 8000, 1337];

/** Replaces USUAL_PORTS when set (comma-separated; empty probes only the extra ports). */
export const DISCOVERY_PORTS_ENV = 'GATEHOUSE_DISCOVERY_PORTS';

export function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** Parses `11434, 1234`; throws naming the first entry that is not a port. */
export function parsePortList(text: string): number[] {
  const ports: number[] = [];
  for (const part of text.split(',')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const port = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
    if (!isPort(port)) throw new Error(`'${trimmed}' is not a port (1-65535)`);
    ports.push(port);
  }
  return ports;
}

/** The usual ports, or what GATEHOUSE_DISCOVERY_PORTS says instead. */
export function usualPorts(env: NodeJS.ProcessEnv): number[] {
  const override = env[DISCOVERY_PORTS_ENV];
  return override === undefined ? [...USUAL_PORTS] : parsePortList(override);
}

/** The usual and extra ports, each once, in that order, without the excluded ones. */
export function probePorts(usual: readonly number[], extra: readonly number[], exclude: readonly number[] = []): number[] {
  const skip = new Set(exclude);
  return [...new Set([...usual, ...extra])].filter((port) => isPort(port) && !skip.has(port));
}

/** The probe's deadline per port in milliseconds, for slow machines (default 800). */
export const DISCOVERY_TIMEOUT_ENV = 'GATEHOUSE_DISCOVERY_TIMEOUT_MS';

/** GATEHOUSE_DISCOVERY_TIMEOUT_MS when it is a whole number of milliseconds from 50 to 10000, else the fallback. */
export function probeTimeoutFrom(env: NodeJS.ProcessEnv, fallback: number): number {
  const text = env[DISCOVERY_TIMEOUT_ENV];
  if (text === undefined || !/^\d+$/.test(text.trim())) return fallback;
  const value = Number(text.trim());
  return value >= 50 && value <= 10_000 ? value : fallback;
}
