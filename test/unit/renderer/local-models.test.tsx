// The Local models page's pieces as a person reads them: sizes and context lengths, an offline
// server, the key button's name, and the Settings field's port list.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LocalServerCard } from '../../../src-renderer/pages/local/LocalServerCard';
import { formatBytes, formatContextLength } from '../../../src-renderer/pages/local/model-format';
import { parsePortsText } from '../../../src-renderer/pages/settings/DiscoveryPortsCard';
import { keyNameFor, type LocalServer } from '../../../src-renderer/stores/local-servers-store';

const server: LocalServer = {
  kind: 'llamacpp',
  url: 'http://127.0.0.1:8080/v1',
  host: '127.0.0.1',
  port: 8080,
  version: 'b5092-d3bd7193',
  models: [{ id: 'gemma-3-4b-it-Q4_K_M.gguf', size: 2_489_757_856, contextLength: 8192 }],
  connection: { provider: 'openai-compatible', customHost: 'http://127.0.0.1:8080/v1' },
  online: false,
  lastSeen: '2026-01-01T10:00:00.000Z',
};

describe('local models page', () => {
  it('writes sizes and context lengths the way people say them', () => {
    expect(formatBytes(2_019_393_189)).toBe('2.0 GB');
    expect(formatBytes(640_000_000)).toBe('640 MB');
    expect(formatBytes(undefined)).toBeNull();
    expect(formatContextLength(131_072)).toBe('128K');
    expect(formatContextLength(8192)).toBe('8K');
    expect(formatContextLength(1500)).toBe('1,500');
    expect(formatContextLength(0)).toBeNull();
  });

  it('shows an offline server with when it was last seen, its models, and a key button named after it', () => {
    const html = renderToStaticMarkup(<LocalServerCard server={server} creatingKey={false} serverKey={null} onMakeKey={() => undefined} onOpenKeys={() => undefined} />);
    expect(keyNameFor(server)).toBe('llama.cpp server on 127.0.0.1:8080');
    expect(html).toContain('aria-label="llama.cpp server on 127.0.0.1:8080"');
    expect(html).toContain('offline');
    expect(html).toContain('last seen');
    // A build name as it is; a version number gets its v.
    expect(html).toContain('>b5092-d3bd7193<');
    expect(html).toContain('2.5 GB');
    expect(html).toContain('8K context');
    expect(html).toMatch(/Make a key<span class="visually-hidden"> for llama\.cpp server on 127\.0\.0\.1:8080<\/span>/);
    expect(html).toContain('aria-label="Copy model name gemma-3-4b-it-Q4_K_M.gguf"');
  });

  it('reads the extra ports field: commas or spaces, each once, and names an entry that is not a port', () => {
    expect(parsePortsText('5001, 8081 5001')).toEqual({ ports: [5001, 8081] });
    expect(parsePortsText('')).toEqual({ ports: [] });
    expect(parsePortsText('5001, 70000')).toEqual({ error: '‘70000’ is not a port (1–65535)' });
    expect(parsePortsText('abc')).toHaveProperty('error');
  });
});
