// `gatehouse serve`: starts the gateway and the UI, prints where (ready-lines.ts), and stops cleanly on SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { startGatehouse, type RunningGatehouse } from '../app.js';
import { readyLines } from './ready-lines.js';

export async function runServeCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'allow-remote': { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      'redis-url': { type: 'string' },
      'instance-name': { type: 'string' },
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
      instanceName: values['instance-name'],
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
