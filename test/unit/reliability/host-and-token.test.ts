// The admin API's gates: an exact loopback Host allowlist (DNS rebinding), same-origin only, and an
// admin token compared in constant time.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isAllowedOrigin, isLoopbackHostHeader } from '../../../src-main/core/loopback.js';
import { tokensMatch } from '../../../src-main/core/token-match.js';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '127.1.2.3', 'LOCALHOST'];
function isGenuineLoopbackAddress(host: string): boolean {
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return octets !== null && octets.slice(1).every((octet) => Number(octet) <= 255);
}

const port = fc.integer({ min: 1, max: 65_535 });
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const domain = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));

describe('the Host allowlist', () => {
  it.each(['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'localhost', '127.0.0.1', '[::1]', '127.0.0.2:1'])('lets %s in', (host) => {
    expect(isLoopbackHostHeader(host)).toBe(true);
  });

  it.each([
    '127.0.0.1.evil.com', 'localhost.evil.com', 'evil.com', '127.0.0.1.evil.com:8787', 'localhost.evil.com:8787', 'evil.com:8787',
    'localhost@evil.com', 'evil.com#localhost', '127.0.0.1:8787.evil.com', 'localhost:8787:8787', '[::1].evil.com', '[::2]:8787',
    '0.0.0.0:8787', '127.0.0.256', '127.0.0', '127.0.0.1.', 'localhost.', ' localhost:80 x', '', 'xn--localhost', '[::ffff:7f00:1]',
  ])('keeps %s out', (host) => {
    expect(isLoopbackHostHeader(host)).toBe(false);
  });

  it('keeps out any loopback name with anything added before or after it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LOOPBACK_HOSTS), domain, fc.option(port), fc.constantFrom('.', '-', '@', '_', ''), (loopback, other, maybePort, joiner) => {
        const suffix = maybePort === null ? '' : `:${maybePort}`;
        for (const host of [`${loopback}${joiner}${other}`, `${other}${joiner}${loopback}`]) {
          // `127.1.2.3` + `0` is 127.1.2.30, a loopback address in its own right.
          if (isGenuineLoopbackAddress(host)) continue;
          expect(isLoopbackHostHeader(`${host}${suffix}`)).toBe(false);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps out every host name that is not loopback', () => {
    fc.assert(
      fc.property(domain.filter((name) => name !== 'localhost' && !/^127\.\d+\.\d+\.\d+$/.test(name)), fc.option(port), (name, maybePort) => {
        expect(isLoopbackHostHeader(maybePort === null ? name : `${name}:${maybePort}`)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('the Origin check', () => {
  it('lets in requests without Origin (not from a browser page) and from the page Gatehouse serves', () => {
    expect(isAllowedOrigin(undefined, '127.0.0.1:8787')).toBe(true);
    expect(isAllowedOrigin('http://127.0.0.1:8787', '127.0.0.1:8787')).toBe(true);
    expect(isAllowedOrigin('http://localhost:8787', 'localhost:8787')).toBe(true);
  });

  it.each([
    ['http://evil.com', '127.0.0.1:8787'],
    ['null', '127.0.0.1:8787'],
    ['http://127.0.0.1:9999', '127.0.0.1:8787'],
    ['https://127.0.0.1:8787', '127.0.0.1:8787'],
    ['http://localhost:8787', '127.0.0.1:8787'],
    ['http://evil.com:8787', 'evil.com:8787'],
    ['file://', '127.0.0.1:8787'],
  ])('refuses Origin %s on Host %s', (origin, host) => {
    expect(isAllowedOrigin(origin, host)).toBe(false);
  });
});

describe('the admin token comparison', () => {
  it('matches exactly when the strings are equal, whatever their lengths (no throw on a length mismatch)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
        expect(tokensMatch(a, b)).toBe(a === b);
        expect(tokensMatch(a, a)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('does not accept a prefix or an extension of the token', () => {
    const token = 'rXv1WmU2JzKq9S0sY5e8n3hT7bL4cA6dF1gH2jK3lM4';
    expect(tokensMatch(token.slice(0, -1), token)).toBe(false);
    expect(tokensMatch(`${token}x`, token)).toBe(false);
    expect(tokensMatch('', token)).toBe(false);
  });
});
