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
    // Prose that names the parameter has no value to blank; a value is blanked whatever follows it.
    expect(redactSecrets('The key sent in the URL (?key=) is not a Gatehouse key', [])).toBe('The key sent in the URL (?key=) is not a Gatehouse key');
    expect(redactSecrets('(see /v1?key=abc123)', [])).toBe(`(see /v1?key=${REDACTED}`);
  });

  // A text is scanned for shapes only when it holds one of their marks (the quick check before the
  // scans): each shape alone in its text, so a mark missing from that check lets its shape through.
  it.each([
    ['an OpenAI key', 'sk-abcdefghijklmnop', REDACTED],
    ['a virtual key', 'gh-vk-abcdefgh1234', REDACTED],
    ['an AWS access key id', 'AKIAABCDEFGHIJKLMNOP', REDACTED],
    ['a Google API key', 'AIzaSyA-abcdefghijklmnopqrstu', REDACTED],
    ['a Google access token', 'ya29.a0AfB_byC-minted.token_value', REDACTED],
    ['a URL with a password', 'https://bob:hunter2pass@db.example', `https://${REDACTED}@db.example`],
    ['a credential parameter', 'see /v1?key=abc123', `see /v1?key=${REDACTED}`],
  ])('blanks %s alone in its text', (_shape, text, expected) => {
    expect(redactSecrets(`seen: ${text}`, [])).toBe(`seen: ${expected}`);
  });

  it('leaves ordinary words that merely start alike', () => {
    expect(redactSecrets('ya29 is a word; sk-short; ya29.ab', [])).toBe('ya29 is a word; sk-short; ya29.ab');
  });
});
