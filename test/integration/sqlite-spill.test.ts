// Nothing lost on SQLite either: rows the database refuses until the log closes (here another program
// holds its write lock past the busy timeout, as a locked or full disk would refuse) are kept in the data
// dir (log-spill-*.ndjson, team mode's format) and written at the next start, once; the dropped-rows
// metric stays 0.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SQLITE_SPILL_PREFIX, spillFiles } from '../../src-main/store/spill-file.js';
import type { RequestLog } from '../../src-main/store/request-log.js';
import { DATABASE_FILE } from '../../src-main/store/database.js';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let fake: OpenAIFake;
const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-sqlite-spill-'));

beforeAll(async () => {
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function complete(gateway: TestGateway, prompt: string) {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': TEST_GATEWAY_KEY, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt, max_tokens: 5 }),
  });
}

const traces = async (gateway: TestGateway) => {
  await gateway.flushLog();
  const db = new Database(join(gateway.dataDir, DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare("SELECT error, status FROM request_log WHERE path = '/v1/completions'").all() as { status: number }[]).length;
  } finally {
    db.close();
  }
};

it('rows the database refused at close are kept in the data dir and written once at the next start; none counted dropped', async () => {
  const gateway = await startGateway({ dataDir });
  let dropped = -1;
  try {
    for (let i = 0; i < 3; i++) expect((await complete(gateway, `before ${i}`)).status).toBe(200);
    expect(await traces(gateway)).toBe(3);
    // Another program takes the database's write lock and keeps it past the stop (reads go on: WAL).
    const holder = new Database(join(dataDir, DATABASE_FILE));
    holder.exec('BEGIN IMMEDIATE');
    try {
      for (let i = 0; i < 6; i++) expect((await complete(gateway, `locked ${i}`)).status).toBe(200);
      await gateway.close();
      dropped = (gateway.running.services.requestLog as RequestLog).droppedCount;
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  } finally {
    await gateway.close();
  }
  expect(dropped).toBe(0);
  const [file] = spillFiles(dataDir, SQLITE_SPILL_PREFIX);
  expect(file).toBeDefined();
  expect(statSync(file).mode & 0o777).toBe(0o600);

  const again = await startGateway({ dataDir });
  try {
    expect(await traces(again)).toBe(9);
    expect(readdirSync(dataDir).filter((name) => name.startsWith(SQLITE_SPILL_PREFIX))).toEqual([]);
  } finally {
    await again.close();
  }
  // A third start finds nothing more to write.
  const third = await startGateway({ dataDir });
  try {
    expect(await traces(third)).toBe(9);
  } finally {
    await third.close();
  }
}, 60_000);
