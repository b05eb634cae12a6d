// Which team gateway addresses the desktop app accepts: the admin token must not cross a network in the
// clear, so plain http is for this machine only; the address is kept in one form the relay appends to.
import { describe, expect, it } from 'vitest';
import { checkTeamAddress } from '../../../src-main/core/team-gateway.js';
import { GatewayError } from '../../../src-main/core/errors.js';

function refusal(value: unknown): GatewayError {
  try {
    checkTeamAddress(value);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error(`${String(value)} was accepted`);
}

describe('team gateway address', () => {
  it('takes https anywhere and http on loopback, in one form', () => {
    expect(checkTeamAddress('https://gatehouse.example.com/')).toBe('https://gatehouse.example.com');
    expect(checkTeamAddress(' https://example.com:8443/gatehouse/admin/api ')).toBe('https://example.com:8443/gatehouse');
    expect(checkTeamAddress('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787');
    expect(checkTeamAddress('http://localhost:8787/admin')).toBe('http://localhost:8787');
    expect(checkTeamAddress('http://[::1]:8787')).toBe('http://[::1]:8787');
  });

  it('refuses plain http elsewhere, other schemes, credentials and non-URLs with a 400 naming address', () => {
    for (const value of ['http://gatehouse.example.com', 'http://192.168.1.10:8787', 'http://127.0.0.1.example.com', 'ws://127.0.0.1', 'https://user:pw@example.com', 'https://example.com/?a=1', 'not a url', '', 42, null]) {
      const error = refusal(value);
      expect(error.status, String(value)).toBe(400);
      expect(error.param, String(value)).toBe('address');
    }
    expect(refusal('http://gatehouse.example.com').message).toContain('must use https');
  });
});
