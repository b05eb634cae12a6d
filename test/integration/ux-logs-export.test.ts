// GET /admin/api/logs/export: the filtered request log as CSV or JSON Lines, with the key's name and the
// cost, streamed page by page. 50,000 rows are written straight into the data dir's database (as a long-
// running gateway would have them); the export must apply the filters, carry every row, and read pages only
// as fast as the client takes them (a client that stops reading stops the reads). A CSV cell that begins as
// a formula would (=, +, -, @, tab, CR) is defused.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { DATABASE_FILE } from '../../src-main/store/database.js';

const ROWS = 50_000;
let gateway: TestGateway;
let keyId: string;

beforeAll(async () => {
  gateway = await startGateway();
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Team, "alpha"', provider: 'openai', secret: 'sk-export-0123456789' }) });
  keyId = ((await created.json()) as { id: string }).id;
  const db = new Database(join(gateway.dataDir, DATABASE_FILE));
  const insert = db.prepare(
    "INSERT INTO request_log (created_at, trace_id, path, status, latency_ms, provider, model, key_id, cost_usd, prompt_tokens, completion_tokens, error, day) VALUES (?, ?, '/v1/chat/completions', ?, 12.5, ?, ?, ?, ?, 10, 5, ?, '2026-01-01')",
  );
  // Recent rows: the log's retention (30 days) would prune older ones while the test reads.
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const failed = i % 10 === 0;
      insert.run(now - ROWS + i, `trace-${i}`, failed ? 500 : 200, i % 2 ? 'openai' : 'anthropic', i % 2 ? 'gpt-4o-mini' : 'claude-haiku-4-5', keyId, failed ? null : 0.0001, failed ? '=HYPERLINK("x")' : null);
    }
  })();
  db.close();
}, 60_000);
afterAll(async () => {
  await gateway.close();
});

/** RFC 4180 as a spreadsheet reads it: quoted cells may hold commas, quotes ("") and line ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

function exportUrl(query: string): string {
  return `${gateway.baseUrl}/admin/api/logs/export?${query}`;
}

describe('logs export', () => {
  it('CSV of the filtered rows, with key name and cost, a filename, and formulas defused', async () => {
    const response = await fetch(exportUrl('format=csv&provider=openai&status=error'), { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="gatehouse-logs-[\d-T]+\.csv"$/);
    const lines = (await response.text()).trimEnd().split('\r\n');
    expect(lines[0].split(',').slice(0, 10)).toEqual(['id', 'createdAt', 'keyName', 'keyId', 'provider', 'model', 'route', 'routeTarget', 'status', 'costUsd']);
    // openai rows are the odd ones, errors every tenth: none is both (i % 10 === 0 is even).
    expect(lines).toHaveLength(1);
    const errors = (await (await fetch(exportUrl('format=csv&status=error'), { headers: { authorization: `Bearer ${gateway.adminToken}` } })).text()).trimEnd().split('\r\n');
    expect(errors).toHaveLength(1 + ROWS / 10);
    expect(errors[1]).toContain(`"Team, ""alpha""",${keyId},anthropic,claude-haiku-4-5,,,500,,`);
    expect(errors[1]).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it('every cell a spreadsheet would run as a formula is defused: =, +, -, @, tab and CR first', async () => {
    // Error texts and model names come from providers and clients: each place text lands in the export.
    const dangerous = ['=1+1', '+1+1', '-1+1', '@SUM(A1)', '\t=1+1', '\r=1+1'];
    const db = new Database(join(gateway.dataDir, DATABASE_FILE));
    const insert = db.prepare(
      "INSERT INTO request_log (created_at, trace_id, path, status, latency_ms, provider, model, key_id, error, day) VALUES (?, ?, '/v1/chat/completions', 502, 1, 'formula-test', ?, NULL, ?, '2026-01-01')",
    );
    dangerous.forEach((text, i) => insert.run(Date.now() - i, `formula-${i}`, text, text));
    db.close();
    const response = await fetch(exportUrl('format=csv&provider=formula-test'), { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    const [header, ...rows] = parseCsv(await response.text());
    expect(rows).toHaveLength(dangerous.length);
    const column = (name: string) => header.indexOf(name);
    const byTrace = new Map(rows.map((row) => [row[column('traceId')], row]));
    dangerous.forEach((text, i) => {
      const row = byTrace.get(`formula-${i}`)!;
      // Read back by a CSV reader, the cell is the text behind an apostrophe: shown as text, never run.
      expect(row[column('error')], JSON.stringify(text)).toBe(`'${text}`);
      expect(row[column('model')], JSON.stringify(text)).toBe(`'${text}`);
    });
  });

  it('JSON Lines of every row, newest first, and the admin token is required', async () => {
    expect((await fetch(exportUrl('format=jsonl'))).status).toBe(401);
    expect((await fetch(exportUrl('format=xml'), { headers: { authorization: `Bearer ${gateway.adminToken}` } })).status).toBe(400);
    const response = await fetch(exportUrl('format=jsonl&model=gpt-4o-mini'), { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const rows = (await response.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; keyName: string; costUsd: number | null; model: string });
    expect(rows).toHaveLength(ROWS / 2);
    expect(rows.every((row) => row.model === 'gpt-4o-mini' && row.keyName === 'Team, "alpha"')).toBe(true);
    expect(rows[0].costUsd).toBe(0.0001);
    expect(Number(rows[0].id)).toBeGreaterThan(Number(rows[1].id));
  });

  it('reads a page only when the client takes the one before: a client that stops reading holds a bounded part of 50,000 rows', async () => {
    const pages = vi.spyOn(gateway.running.services.requestLog, 'exportPage');
    const response = await fetch(exportUrl('format=jsonl'), { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    const reader = response.body!.getReader();
    await reader.read();
    // The client stops reading; the server fills the socket buffers and then waits.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const readWhilePaused = pages.mock.calls.length;
    expect(readWhilePaused).toBeGreaterThan(0);
    // 50,000 rows are 100 pages; the socket's buffers hold a few of them at most.
    expect(readWhilePaused).toBeLessThan(40);
    let bytes = 0;
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (const byte of value) if (byte === 10) lines++;
    }
    expect(pages.mock.calls.length).toBeGreaterThanOrEqual(100);
    expect(lines).toBeGreaterThan(ROWS - 1_000);
    expect(bytes).toBeGreaterThan(0);
    pages.mockRestore();
  }, 60_000);
});
