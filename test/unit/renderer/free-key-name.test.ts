// Make a key names a key after its server; names are unique among active keys, so a second key for the
// same server must get a name of its own instead of a refusal.
import { describe, expect, it } from 'vitest';
import { freeKeyName } from '../../../src-renderer/stores/local-servers-store';

describe('freeKeyName', () => {
  it('keeps the name when it is free, and takes the next number when it is not, whatever the case', () => {
    expect(freeKeyName('Ollama on 127.0.0.1:11434', ['other'])).toBe('Ollama on 127.0.0.1:11434');
    expect(freeKeyName('Ollama on 127.0.0.1:11434', ['ollama ON 127.0.0.1:11434'])).toBe('Ollama on 127.0.0.1:11434 (2)');
    expect(freeKeyName('Ollama on 127.0.0.1:11434', ['Ollama on 127.0.0.1:11434', 'Ollama on 127.0.0.1:11434 (2)'])).toBe('Ollama on 127.0.0.1:11434 (3)');
  });
});
