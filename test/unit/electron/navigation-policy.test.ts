import { describe, expect, it } from 'vitest';
import {
  buildContentSecurityPolicy,
  isAllowedExternalUrl,
  isGatewayUrl,
  isPermissionAllowed,
  originOf,
  withContentSecurityPolicy,
} from '../../../src-main/electron/navigation-policy';

const gateway = 'http://127.0.0.1:8787';

describe('navigation inside the window', () => {
  it('allows pages of the gateway it belongs to', () => {
    expect(isGatewayUrl('http://127.0.0.1:8787/', gateway)).toBe(true);
    expect(isGatewayUrl('http://127.0.0.1:8787/#token=abc', gateway)).toBe(true);
    expect(isGatewayUrl('http://127.0.0.1:8787/logs?id=3', gateway)).toBe(true);
  });

  it('refuses another port, another host name for the same machine, and another scheme', () => {
    expect(isGatewayUrl('http://127.0.0.1:8788/', gateway)).toBe(false);
    expect(isGatewayUrl('http://localhost:8787/', gateway)).toBe(false);
    expect(isGatewayUrl('https://127.0.0.1:8787/', gateway)).toBe(false);
    expect(isGatewayUrl('file:///etc/passwd', gateway)).toBe(false);
    expect(isGatewayUrl('javascript:alert(1)', gateway)).toBe(false);
    expect(isGatewayUrl('not a url', gateway)).toBe(false);
  });

  it('takes the origin of the gateway address the server reports', () => {
    expect(originOf('http://127.0.0.1:43123')).toBe('http://127.0.0.1:43123');
    expect(originOf('http://[::1]:8787/')).toBe('http://[::1]:8787');
    expect(() => originOf('nonsense')).toThrow();
  });
});

describe('links opened in the system browser', () => {
  it('opens https links to allowlisted documentation sites', () => {
    expect(isAllowedExternalUrl('https://github.com/openai/openai-node')).toBe(true);
    expect(isAllowedExternalUrl('https://www.github.com/')).toBe(true);
    expect(isAllowedExternalUrl('https://platform.openai.com/api-keys')).toBe(true);
    expect(isAllowedExternalUrl('https://docs.anthropic.com/en/api/messages')).toBe(true);
  });

  it('refuses plain http, other schemes and hosts not on the list', () => {
    expect(isAllowedExternalUrl('http://github.com/')).toBe(false);
    expect(isAllowedExternalUrl('file:///home/user/.ssh/id_rsa')).toBe(false);
    expect(isAllowedExternalUrl('smb://github.com/share')).toBe(false);
    expect(isAllowedExternalUrl('https://evil.example/')).toBe(false);
    expect(isAllowedExternalUrl('https://github.com.evil.example/')).toBe(false);
    expect(isAllowedExternalUrl('https://gist.github.com/')).toBe(false);
  });

  it('refuses links that hide their real host behind credentials or a port', () => {
    expect(isAllowedExternalUrl('https://github.com@evil.example/')).toBe(false);
    expect(isAllowedExternalUrl('https://user:pass@github.com/')).toBe(false);
    expect(isAllowedExternalUrl('https://github.com:8443/')).toBe(false);
  });
});

describe('content security policy', () => {
  const policy = buildContentSecurityPolicy();
  const directives = new Map(policy.split('; ').map((part) => [part.split(' ')[0], part.slice(part.indexOf(' ') + 1)]));

  it('runs scripts only from the gateway itself, never inline or eval', () => {
    expect(directives.get('script-src')).toBe("'self'");
    expect(policy).not.toContain('unsafe-eval');
    expect(directives.get('default-src')).toBe("'none'");
  });

  it('lets the page talk only to its own origin and never be framed', () => {
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('object-src')).toBe("'none'");
    expect(directives.get('base-uri')).toBe("'none'");
  });
});

describe('adding the policy to a response', () => {
  it('keeps the policy the gateway sent and adds the window\'s own beside it', () => {
    const merged = withContentSecurityPolicy({ 'content-security-policy': ["default-src 'self'"], 'content-type': ['text/html'] }, "default-src 'none'");
    expect(merged['content-security-policy']).toEqual(["default-src 'self'", "default-src 'none'"]);
    expect(merged['content-type']).toEqual(['text/html']);
    expect(Object.keys(merged).filter((name) => name.toLowerCase() === 'content-security-policy')).toHaveLength(1);
  });

  it('adds the header when the response had none', () => {
    expect(withContentSecurityPolicy(undefined, "default-src 'none'")).toEqual({ 'Content-Security-Policy': ["default-src 'none'"] });
  });
});

describe('permissions', () => {
  it('denies everything except clipboard writes from the gateway page', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', 'http://127.0.0.1:8787/', gateway)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'http://127.0.0.1:8787', gateway)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/', gateway)).toBe(false);
    for (const permission of ['clipboard-read', 'media', 'geolocation', 'notifications', 'openExternal', 'fullscreen']) {
      expect(isPermissionAllowed(permission, 'http://127.0.0.1:8787/', gateway)).toBe(false);
    }
  });
});
