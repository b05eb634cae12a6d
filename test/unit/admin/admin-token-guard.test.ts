// The admin token guard's memory stays bounded however many addresses guess, and rotating addresses
// buys no more guesses than one address has (integration: test/integration/admin-surface.test.ts).
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AdminTokenGuard, AdminTokenThrottled, clientAddressKey } from '../../../src-main/gateway/admin-token-guard.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';

const from = (remoteAddress: string) => ({ socket: { remoteAddress }, headers: {} }) as unknown as IncomingMessage;

function attempt(guard: AdminTokenGuard, address: string, token: string): number {
  try {
    return guard.verify(from(address), token, '/admin/api') ? 200 : 401;
  } catch (error) {
    return error instanceof AdminTokenThrottled ? 429 : 401;
  }
}

describe('AdminTokenGuard', () => {
  it('tracks at most maxAddresses addresses; past them all share one throttled bucket', () => {
    const rows: CallRecord[] = [];
    const guard = new AdminTokenGuard('the-token', (row) => rows.push(row), { maxAddresses: 100 });
    const statuses: number[] = [];
    for (let i = 0; i < 20_000; i++) statuses.push(attempt(guard, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, `guess-${i}`));
    expect(guard.trackedAddresses).toBeLessThanOrEqual(101);
    // 100 addresses with their own allowance, then 10 wrong guesses for all the others together.
    expect(statuses.filter((status) => status === 401)).toHaveLength(110);
    expect(attempt(guard, '10.200.0.1', 'the-token')).toBe(429);
    expect(rows.every((row) => row.unauthenticated === true && !JSON.stringify(row).includes('guess-'))).toBe(true);
  });

  it('counts IPv6 clients by their /64 and IPv4-mapped ones as IPv4', () => {
    expect(clientAddressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    const guard = new AdminTokenGuard('the-token', () => undefined);
    for (let i = 0; i < 10; i++) attempt(guard, `2001:db8:1:2::${i.toString(16)}`, 'wrong');
    expect(attempt(guard, '2001:db8:1:2:ffff::9', 'the-token')).toBe(429);
    expect(attempt(guard, '2001:db8:1:3::1', 'the-token')).toBe(200);
  });
});
