// Finding the next port the gateway can bind, to offer it when the configured one is taken.
import { createServer } from 'node:net';

export function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => {
      probe.close(() => resolve(true));
    });
  });
}

/** The first port after `busyPort` that accepts a listener, or null when none of the next `attempts` does. */
export async function findNextFreePort(host: string, busyPort: number, attempts = 50): Promise<number | null> {
  for (let port = busyPort + 1; port <= Math.min(65535, busyPort + attempts); port += 1) {
    if (await canListen(host, port)) return port;
  }
  return null;
}

export function isAddressInUse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EADDRINUSE';
}
