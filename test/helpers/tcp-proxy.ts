// A TCP relay on loopback in front of a server, able to play a server that vanished without closing its
// connections (a host gone behind a failover address): the connections open at that moment stay open and
// carry nothing more either way, while new connections reach the server as before (the new primary).
// It runs on a thread of its own: a gateway in the test's process may block its thread while it waits for
// PostgreSQL (admin reads), and the relay must go on meanwhile.
import { Worker } from 'node:worker_threads';

export interface TcpProxy {
  port: number;
  /** From now on the connections open now carry nothing, in either direction; they are not closed. */
  silenceOpenConnections(): Promise<void>;
  /**
   * From now on each connection (open or new) loses every answer after the next COMMIT it carries: what
   * the client sends still reaches the server, so the COMMIT lands, and its answer never comes back.
   */
  loseAnswersAfterCommit(): Promise<void>;
  /**
   * The next `count` COMMITs each reach the server, which commits, and their connection is then cut
   * before the answer comes back (the client hears the connection end); later connections work as before.
   */
  cutAfterCommits(count: number): Promise<void>;
  close(): Promise<void>;
}

const RELAY_SOURCE = `
const { createConnection, createServer } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const open = new Set();
let armed = false;
let cuts = 0;
const COMMIT = Buffer.from('COMMIT');
const relay = createServer((client) => {
  const server = createConnection({ port: workerData.port, host: workerData.host });
  const pair = { client, server, silent: false, deaf: false, ending: false };
  open.add(pair);
  client.on('data', (chunk) => {
    if (pair.silent) return;
    if (armed && chunk.includes(COMMIT)) pair.deaf = true;
    if (cuts > 0 && chunk.includes(COMMIT)) {
      cuts--;
      pair.deaf = true;
      pair.ending = true;
      // The server reads the COMMIT before the end of its connection; the client hears only the end.
      server.end(chunk);
      client.destroy();
      return;
    }
    server.write(chunk);
  });
  server.on('data', (chunk) => { if (!pair.silent && !pair.deaf) client.write(chunk); });
  // A connection cut after its COMMIT lets the server read to the end of what it was sent.
  const drop = () => { open.delete(pair); client.destroy(); if (!pair.ending) server.destroy(); };
  client.on('error', drop).on('close', drop);
  server.on('error', drop).on('close', drop);
});
relay.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: relay.address().port }));
parentPort.on('message', (message) => {
  if (message === 'silence') {
    for (const pair of open) pair.silent = true;
    parentPort.postMessage('silenced');
  } else if (message === 'arm') {
    armed = true;
    parentPort.postMessage('armed');
  } else if (message && message.cut) {
    cuts = message.cut;
    parentPort.postMessage('cutting');
  } else if (message === 'close') {
    for (const pair of open) { pair.client.destroy(); pair.server.destroy(); }
    relay.close(() => parentPort.postMessage('closed'));
  }
});
`;

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const worker = new Worker(RELAY_SOURCE, { eval: true, workerData: { port: targetPort, host: targetHost } });
  const next = () => new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const { port } = (await next()) as { port: number };
  return {
    port,
    silenceOpenConnections: async () => {
      const answered = next();
      worker.postMessage('silence');
      await answered;
    },
    loseAnswersAfterCommit: async () => {
      const answered = next();
      worker.postMessage('arm');
      await answered;
    },
    cutAfterCommits: async (count) => {
      const answered = next();
      worker.postMessage({ cut: count });
      await answered;
    },
    close: async () => {
      const answered = next();
      worker.postMessage('close');
      await answered;
      await worker.terminate();
    },
  };
}
