// Service account tokens for Vertex AI: a signed JWT exchanged once, the token kept and shared until
// five minutes before it expires, then renewed; a key file that cannot work is refused by name.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseServiceAccount, serviceAccountToken } from '../../../src-main/providers/google-service-account.js';
import { startGoogleOAuthFake, type GoogleOAuthFake } from '../../fakes/google-oauth.js';

let oauth: GoogleOAuthFake;
beforeAll(async () => {
  oauth = await startGoogleOAuthFake();
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await oauth.close();
});

describe('service account access tokens', () => {
  it('asks once for concurrent requests, keeps the token, and renews it five minutes before it expires', async () => {
    const { json } = oauth.serviceAccount('cache');
    const before = oauth.issued.length;
    const tokens = await Promise.all([serviceAccountToken(json, 'f'), serviceAccountToken(json, 'f'), serviceAccountToken(json, 'f')]);
    expect(new Set(tokens).size).toBe(1);
    expect(oauth.issued.length - before).toBe(1);

    const now = Date.now();
    // 54 minutes on: the token (valid 3599 s) is still used.
    vi.spyOn(Date, 'now').mockReturnValue(now + 54 * 60_000);
    expect(await serviceAccountToken(json, 'f')).toBe(tokens[0]);
    // 56 minutes on: within five minutes of its end, so a new one is asked for.
    vi.spyOn(Date, 'now').mockReturnValue(now + 56 * 60_000);
    const renewed = await serviceAccountToken(json, 'f');
    expect(renewed).not.toBe(tokens[0]);
    expect(oauth.issued.length - before).toBe(2);
  });

  it('does not keep a refusal: the next request asks Google again', async () => {
    const account = JSON.parse(oauth.serviceAccount('flaky').json) as Record<string, string>;
    // A key Google does not know: refused, twice, each time asked anew.
    const unknown = JSON.stringify({ ...account, client_email: 'unknown@test-project.iam.gserviceaccount.com' });
    const asked = oauth.requests.length;
    await expect(serviceAccountToken(unknown, 'f')).rejects.toMatchObject({ status: 401, message: expect.stringContaining('unknown@') });
    await expect(serviceAccountToken(unknown, 'f')).rejects.toMatchObject({ status: 401 });
    expect(oauth.requests.length - asked).toBe(2);
  });

  it('refuses key files that cannot work, naming the field', () => {
    const field = 'vertex.serviceAccountJson';
    const valid = JSON.parse(oauth.serviceAccount('checks').json) as Record<string, string>;
    const refusal = (json: string) => {
      try {
        parseServiceAccount(json, field);
        return null;
      } catch (error) {
        return { message: (error as Error).message, param: (error as { param?: string }).param };
      }
    };
    expect(refusal(JSON.stringify(valid))).toBeNull();
    expect(refusal('not json')).toMatchObject({ param: field, message: expect.stringContaining('not JSON') });
    expect(refusal(JSON.stringify({ ...valid, type: 'authorized_user' }))).toMatchObject({ param: field, message: expect.stringContaining('service_account') });
    expect(refusal(JSON.stringify({ ...valid, private_key: 'garbage' }))).toMatchObject({ param: field, message: expect.stringContaining('cannot be read') });
    expect(refusal(JSON.stringify({ ...valid, client_email: '' }))).toMatchObject({ param: field, message: expect.stringContaining('client_email') });
    expect(refusal(JSON.stringify({ ...valid, token_uri: 'file:///etc/passwd' }))).toMatchObject({ param: field, message: expect.stringContaining('token_uri') });
  });
});
