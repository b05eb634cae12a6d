// The Gemini double's own generateContent rules (Gemini API and Vertex): bodies Gemini accepts pass,
// bodies it refuses fail with its INVALID_ARGUMENT message. A double that silently accepts is caught here.
import { describe, expect, it } from 'vitest';
import { geminiRequestProblem, startGeminiFake } from '../../fakes/gemini.js';

const user = (...parts: unknown[]) => ({ role: 'user', parts });
const model = (...parts: unknown[]) => ({ role: 'model', parts });

const GOOD: [string, unknown][] = [
  ['one user turn', { contents: [user({ text: 'Hi' })] }],
  ['a turn without a role (it means user)', { contents: [{ parts: [{ text: 'Hi' }] }] }],
  ['systemInstruction and generationConfig', { systemInstruction: { parts: [{ text: 'Be brief' }] }, contents: [user({ text: 'Hi' }), model({ text: 'Hello' }), user({ text: 'More' })], generationConfig: { temperature: 2, maxOutputTokens: 10 } }],
  ['a function round trip', { contents: [user({ text: 'Weather?' }), model({ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }), user({ functionResponse: { name: 'get_weather', response: { celsius: 18 } } })], tools: [{ functionDeclarations: [{ name: 'get_weather' }] }] }],
  ['consecutive user turns', { contents: [user({ text: 'Hi' }), user({ text: 'Again' })] }],
  ['whitespace text', { contents: [user({ text: 'Hi' }, { text: '\n' })] }],
  ['inline data', { contents: [user({ inlineData: { mimeType: 'image/png', data: 'AAAA' } }, { text: 'What is it?' })] }],
  ['a thought signature beside a call', { contents: [user({ text: 'Hi' }), model({ functionCall: { name: 'f', args: {} }, thoughtSignature: 'sig' })] }],
];

const BAD: [string, unknown, RegExp][] = [
  ['no contents', {}, /^\* GenerateContentRequest\.contents: contents is not specified\n$/],
  ['empty contents (a system-only chat)', { systemInstruction: { parts: [{ text: 'Be brief' }] }, contents: [] }, /contents is not specified/],
  ['empty parts', { contents: [user({ text: 'Hi' }), model()] }, /^\* GenerateContentRequest\.contents\[1\]\.parts: contents\.parts must not be empty\.\n$/],
  ['no parts', { contents: [{ role: 'user' }] }, /contents\[0\]\.parts: contents\.parts must not be empty/],
  ['an empty text part', { contents: [user({ text: '' })] }, /^Unable to submit request because it has an empty text parameter\. Add a value to the parameter and try again\./],
  ['an empty text part beside a call', { contents: [user({ text: 'Hi' }), model({ text: '' }, { functionCall: { name: 'f', args: {} } })] }, /empty text parameter/],
  ['a part with no data', { contents: [user({})] }, /contents\[0\]\.parts\[0\]\.data: required oneof field 'data' must have one initialized field/],
  ['the assistant role', { contents: [{ role: 'assistant', parts: [{ text: 'Hi' }] }] }, /^Please use a valid role: user, model\.$/],
  ['the function role', { contents: [user({ text: 'Hi' }), { role: 'function', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, /valid role: user, model/],
  ['the system role', { contents: [{ role: 'system', parts: [{ text: 'Hi' }] }] }, /valid role/],
  ['an empty systemInstruction text', { systemInstruction: { parts: [{ text: '' }] }, contents: [user({ text: 'Hi' })] }, /empty text parameter/],
  ['temperature 3', { contents: [user({ text: 'Hi' })], generationConfig: { temperature: 3 } }, /temperature value out of range/],
];

describe('the Gemini double accepts what generateContent accepts', () => {
  it.each(GOOD)('%s', (_name, json) => {
    expect(geminiRequestProblem(json)).toBeUndefined();
  });
});

describe('the Gemini double refuses what generateContent refuses, in its words', () => {
  it.each(BAD)('%s', (_name, json, message) => {
    expect(geminiRequestProblem(json)).toMatch(message);
  });
});

describe('the Gemini double server answers a refusal in the real shape', () => {
  it('400 {error:{code:400, message, status:"INVALID_ARGUMENT"}}', async () => {
    const fake = await startGeminiFake();
    try {
      const res = await fetch(`${fake.baseUrl}/v1beta/models/gemini-2.0-flash:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [] }] }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { code: 400, message: '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n', status: 'INVALID_ARGUMENT' } });
    } finally {
      await fake.close();
    }
  });
});
