// Which local server a key or custom host points at, so the Model field can offer that server's models.
import { describe, expect, it } from 'vitest';
import type { LocalServer } from '../../../src-main/discovery/types';
import { localServerFor, mergeModelNames, sameBaseUrl } from '../../../src-renderer/playground/local-models';

const ollama: LocalServer = {
  kind: 'ollama',
  url: 'http://127.0.0.1:11434/v1',
  host: '127.0.0.1',
  port: 11434,
  version: '0.6.5',
  models: [{ id: 'qwen2.5-coder:7b' }, { id: 'llama3.2:latest' }],
  connection: { provider: 'ollama', customHost: 'http://127.0.0.1:11434/v1' },
  online: true,
  lastSeen: '2026-01-01T00:00:00.000Z',
};

describe('local server models for the Model field', () => {
  it('matches a host however it is written: localhost or 127.0.0.1, case, a trailing slash', () => {
    expect(sameBaseUrl('http://localhost:11434/v1/', 'http://127.0.0.1:11434/v1')).toBe(true);
    expect(sameBaseUrl('HTTP://127.0.0.1:11434/V1', 'http://127.0.0.1:11434/v1')).toBe(true);
    expect(sameBaseUrl('http://127.0.0.1:1234/v1', 'http://127.0.0.1:11434/v1')).toBe(false);
  });

  it('finds the server a key or custom host points at, and none for another host or no host', () => {
    expect(localServerFor([ollama], 'http://localhost:11434/v1')).toBe(ollama);
    expect(localServerFor([ollama], 'https://api.openai.com/v1')).toBeUndefined();
    expect(localServerFor([ollama], null)).toBeUndefined();
    expect(localServerFor([ollama], '  ')).toBeUndefined();
  });

  it('offers the listed models in their order, then the server’s own, each once', () => {
    expect(mergeModelNames(['nomic-embed-text', 'llama3.2:latest'], ollama)).toEqual(['nomic-embed-text', 'llama3.2:latest', 'qwen2.5-coder:7b']);
    expect(mergeModelNames(['b', 'a', 'b'], undefined)).toEqual(['b', 'a']);
  });
});
