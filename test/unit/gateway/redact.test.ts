// What the log and error messages must never show, whether the gateway knew the value or only its shape.
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../../src-main/core/redact.js';

describe('redactSecrets', () => {
  it('blanks the listed secrets and every key or token of a known shape', () => {
    const text = [
      'listed: my-own-secret-value',
      'openai: sk-abcdefghijklmnop',
      'virtual: gh-vk-abcdefgh1234',
      'aws: AKIAABCDEFGHIJKLMNOP',
      'google key: AIzaSyA-abcdefghijklmnopqrstu',
      // An access token minted from a Vertex service account: in no stored list, known by its shape.
      'vertex: Bearer ya29.a0AfB_byC-minted.token_value',
    ].join('\n');
    const redacted = redactSecrets(text, ['my-own-secret-value']);
    expect(redacted).toBe(
      [`listed: ${REDACTED}`, `openai: ${REDACTED}`, `virtual: ${REDACTED}`, `aws: ${REDACTED}`, `google key: ${REDACTED}`, `vertex: Bearer ${REDACTED}`].join('\n'),
    );
  });

  it('blanks credentials inside a URL written in a text, and leaves the rest of the URL', () => {
    expect(redactSecrets('connect to https://bob:hunter2pass@db.example/v1?key=abc123&page=2 failed', [])).toBe(`connect to https://${REDACTED}@db.example/v1?key=${REDACTED}&page=2 failed`);
    expect(redactSecrets('signed: https://b.s3/x?X-Amz-Signature=deadbeef&X-Amz-Date=1', [])).toBe(`signed: https://b.s3/x?X-Amz-Signature=${REDACTED}&X-Amz-Date=1`);
    expect(redactSecrets('a = b; see https://example.com/a?q=cats', [])).toBe('a = b; see https://example.com/a?q=cats');
  });

  it('leaves ordinary words that merely start alike', () => {
    expect(redactSecrets('ya29 is a word; sk-short; ya29.ab', [])).toBe('ya29 is a word; sk-short; ya29.ab');
  });
});
