// Bodies in the log: the caller's secrets are blanked out before a long body is cut, so no piece of a
// secret survives at the cut; with bodies switched off nothing of them is stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { RequestLog } from '../../../src-main/store/request-log.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';

const SECRET = 'provider-secret-0123456789';
const entry = (requestBody: string): CallRecord => ({
  createdAt: Date.now(), traceId: 'bodies', metadata: {}, keyId: null, provider: 'openai', model: 'm', path: '/v1/completions', status: 200,
  latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody, responseBody: `{"echo":"${SECRET}"}`, secrets: [SECRET],
});

let dir: string;
let db: SqliteDatabase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-bodies-'));
  db = openDatabase(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('bodies in the request log', () => {
  it('are redacted before they are cut, so the cut cannot leave half a secret', async () => {
    const log = new RequestLog(db, { maxStoredBodyChars: 20 });
    // The cut at 20 characters falls inside the secret.
    log.append(entry(`{"prompt":"${SECRET} and more text after it"}`));
    await log.flush();
    const detail = (await log.get((await log.list()).items[0].id))!;
    expect(detail.requestBody).toMatch(/^\{"prompt":"\[redact/);
    expect(detail.requestBody).not.toContain('provider-');
    expect(detail.responseBody).not.toContain(SECRET);
    await log.close();
  });

  it('of many megabytes are redacted only as far as they are kept, and still no piece of a secret or key survives at the cut', async () => {
    const log = new RequestLog(db, { maxStoredBodyChars: 20 });
    const key = `sk-${'k'.repeat(40)}`;
    const tail = 'x'.repeat(5 * 1024 * 1024);
    // A secret of the call across the first row's cut, a key shape (no secret of the call) across the second's.
    log.append(entry(`{"prompt":"${SECRET} ${tail}"}`));
    log.append(entry(`{"prompt":"..${key} ${tail}"}`));
    await log.flush();
    const [second, first] = await Promise.all((await log.list()).items.map(async (item) => (await log.get(item.id))!.requestBody!));
    expect(first).toMatch(/^\{"prompt":"\[redact/);
    expect(first).not.toContain('provider-');
    expect(second).toMatch(/^\{"prompt":"\.\.\[redact/);
    expect(second).not.toContain('sk-k');
    // The count of what was left out still covers the whole body.
    expect(Number(/\[(\d+) more characters not stored\]/.exec(first)![1])).toBeGreaterThan(tail.length);
    await log.close();
  });

  it('are not stored at all when bodies are switched off', async () => {
    const log = new RequestLog(db, { storeBodies: () => false });
    log.append(entry('{"prompt":"hello"}'));
    await log.flush();
    const detail = (await log.get((await log.list()).items[0].id))!;
    expect(detail).toMatchObject({ requestBody: null, responseBody: null });
    await log.close();
  });
});
