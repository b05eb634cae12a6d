// Settings → Team gateway, end to end on two real gateways: the local one (the desktop app's) keeps the
// team's address and admin token and relays /admin/api/team/… to the "team" one (its own
// GATEHOUSE_ADMIN_TOKEN), so the UI manages the team through its own loopback API without ever holding
// the team's token. SQLite on both: the relay does not care what the team stores in.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const TEAM_TOKEN = 'team-admin-token-6f1d0c9a2b7e4f58a3c1d2e3f4a5b6c7';

let local: TestGateway;
let team: TestGateway;
let fake: OpenAIFake;

beforeAll(async () => {
  [local, team, fake] = await Promise.all([startGateway(), startGateway({ env: { GATEHOUSE_ADMIN_TOKEN: TEAM_TOKEN } }), startOpenAIFake()]);
});
afterAll(async () => {
  await Promise.all([local?.close(), team?.close(), fake?.close()]);
});

const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body) });

async function keyNames(gateway: TestGateway, base = ''): Promise<string[]> {
  const response = await gateway.admin(`${base}/virtual-keys`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: { name: string }[] }).items.map((key) => key.name);
}

/** Every file under the data dir, the SQLite database, its WAL and the key files included. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('team gateway in the desktop app', () => {
  it('refuses a wrong token with the UI-facing error, and keeps nothing', async () => {
    const response = await local.admin('/team-gateway', { method: 'PUT', ...json({ address: team.baseUrl, token: 'not-the-team-token' }) });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('team_token_refused');
    expect(body.error.message).toContain(`The team gateway at ${team.baseUrl} refused its admin token`);
    expect(await (await local.admin('/team-gateway')).json()).toMatchObject({ available: true, address: null, tokenSet: false });
    // Nothing to relay to yet: a clear 409, not a crash.
    const relayed = await local.admin('/team/virtual-keys');
    expect(relayed.status).toBe(409);
    expect(((await relayed.json()) as { error: { code: string } }).error.code).toBe('team_gateway_not_set');
  });

  it('refuses plain http to a host other than this machine, and an address that answers nothing', async () => {
    for (const address of ['http://gatehouse.example.com', 'http://10.0.0.5:8787', 'ftp://127.0.0.1']) {
      const response = await local.admin('/team-gateway', { method: 'PUT', ...json({ address, token: TEAM_TOKEN }) });
      expect(response.status, address).toBe(400);
      const body = (await response.json()) as { error: { param: string; message: string } };
      expect(body.error.param).toBe('address');
    }
    const refused = await local.admin('/team-gateway', { method: 'PUT', ...json({ address: 'http://gatehouse.example.com', token: TEAM_TOKEN }) });
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/must use https.*127\.0\.0\.1, ::1 or localhost/);
    // A loopback port where nothing listens: 502 naming the address.
    const gone = await local.admin('/team-gateway', { method: 'PUT', ...json({ address: 'http://127.0.0.1:9', token: TEAM_TOKEN }) });
    expect(gone.status).toBe(502);
    expect(((await gone.json()) as { error: { message: string } }).error.message).toContain('Could not reach the team gateway at http://127.0.0.1:9');
  });

  it('connects with the right token, answering with what the team is, and never shows the token', async () => {
    const response = await local.admin('/team-gateway', { method: 'PUT', ...json({ address: `${team.baseUrl}/`, token: TEAM_TOKEN }) });
    expect(response.status).toBe(200);
    const saved = (await response.json()) as Record<string, unknown>;
    expect(saved).toMatchObject({ address: team.baseUrl, tokenSet: true, connected: true, remote: { storage: 'sqlite', instance: null } });
    expect((saved.remote as { version: string }).version).toMatch(/^\d+\.\d+/);
    const status = await (await local.admin('/team-gateway')).text();
    expect(JSON.parse(status)).toMatchObject({ address: team.baseUrl, tokenSet: true, connected: true });
    for (const path of ['/team-gateway', '/settings', '/health']) expect(await (await local.admin(path)).text(), path).not.toContain(TEAM_TOKEN);
    // Sealed at rest: no file of the local data dir holds the token's text.
    await local.flushLog();
    const holding = filesUnder(local.dataDir).filter((file) => readFileSync(file).includes(TEAM_TOKEN));
    expect(holding).toEqual([]);
  });

  it('creates a key through the relay on the team, not on this computer', async () => {
    const created = await local.admin('/team/virtual-keys', { method: 'POST', ...json({ name: 'Team key', provider: 'openai', secret: 'sk-team-1234567890', customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
    expect(await keyNames(team)).toContain('Team key');
    expect(await keyNames(local)).not.toContain('Team key');
    expect(await keyNames(local, '/team')).toContain('Team key');
    // The team's own errors come back as they were: a 400 naming the field.
    const bad = await local.admin('/team/virtual-keys', { method: 'POST', ...json({ name: 'x', provider: 'no-such-provider', secret: 'sk' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBeTruthy();
  });

  it('streams the team live log through the relay as calls happen', async () => {
    const keys = (await (await team.admin('/virtual-keys')).json()) as { items: { id: string; name: string }[] };
    const keyId = keys.items.find((key) => key.name === 'Team key')!.id;
    // The key's secret is shown once; a fresh one for this call.
    const regenerated = (await (await team.admin(`/virtual-keys/${keyId}`, { method: 'PATCH', ...json({ regenerateKey: true }) })).json()) as { key: string };
    const events = new AbortController();
    const live = await local.admin('/team/events', { signal: events.signal });
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    const reader = live.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    // The head and the first comment arrive before any call is made: the relay does not wait for a body.
    while (!seen.includes(': connected')) seen += decoder.decode((await reader.read()).value, { stream: true });

    const traceId = `team-live-${Date.now()}`;
    const call = await fetch(`${team.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': regenerated.key, 'x-gateway-trace-id': traceId },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(call.status).toBe(200);
    await call.text();
    const deadline = Date.now() + 10_000;
    while (!seen.includes(traceId) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    events.abort();
    expect(seen).toContain(traceId);
    // The call was the team's: this computer's log does not have it.
    await local.flushLog();
    expect(await (await local.admin(`/logs?q=${traceId}`)).text()).not.toContain(traceId);
  });

  it('runs the Playground on the team: a stored team key answers a streamed chat through the relay', async () => {
    const keys = (await (await team.admin('/virtual-keys')).json()) as { items: { id: string; name: string }[] };
    const keyId = keys.items.find((key) => key.name === 'Team key')!.id;
    const traceId = `team-playground-${Date.now()}`;
    const response = await local.admin(`/team/playground/${keyId}/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-trace-id': traceId },
      ...json({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hello team' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain('data: [DONE]');
    // Served and logged by the team, not by this computer.
    await team.flushLog();
    await local.flushLog();
    const teamLog = (await (await team.admin('/logs?limit=50')).json()) as { items: { keyId: string | null }[] };
    expect(teamLog.items.some((entry) => entry.keyId === keyId)).toBe(true);
    const localLog = (await (await local.admin('/logs?limit=50')).json()) as { items: unknown[] };
    expect(localLog.items).toEqual([]);
  });

  it('says the token was refused once the team changes it, and forgets the team on DELETE', async () => {
    // A refused PUT changes nothing: the saved connection keeps working.
    const stale = await local.admin('/team-gateway', { method: 'PUT', ...json({ address: team.baseUrl, token: 'stale-token' }) });
    expect(stale.status).toBe(401);
    expect((await local.admin('/team/virtual-keys')).status).toBe(200);
    // The team rotated its token after it was saved: relayed calls say so, in words the UI shows.
    local.running.services.teamGateway!.save({ address: team.baseUrl, token: 'rotated-away' });
    const refused = await local.admin('/team/virtual-keys');
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('team_token_refused');
    expect(await (await local.admin('/team-gateway')).json()).toMatchObject({ connected: false, error: { code: 'team_token_refused' } });
    expect((await local.admin('/team-gateway', { method: 'DELETE' })).status).toBe(204);
    expect(await (await local.admin('/team-gateway')).json()).toMatchObject({ address: null, tokenSet: false });
    expect((await local.admin('/team/virtual-keys')).status).toBe(409);
  });
});
