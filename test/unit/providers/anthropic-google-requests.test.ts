import { describe, expect, it } from 'vitest';
import { anthropic } from '../../../src-main/providers/anthropic.js';
import { google } from '../../../src-main/providers/google.js';
import { completionCall, sentRequest } from './call.js';

describe('default URLs and auth headers of anthropic and google', () => {
  it('anthropic: api.anthropic.com/v1/messages with x-api-key and anthropic-version', () => {
    const request = sentRequest(anthropic, completionCall(anthropic, { model: 'claude-x', prompt: 'p' }, { token: 'sk-ant' }));
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toMatchObject({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
  });

  it('google: generativelanguage.googleapis.com/v1beta/models/{m}:generateContent with x-goog-api-key', () => {
    const request = sentRequest(google, completionCall(google, { model: 'gemini-2.0-flash', prompt: 'p' }, { token: 'AIza' }));
    expect(request.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent');
    expect(request.headers['x-goog-api-key']).toBe('AIza');
  });
});

describe('top_k and forwarded keys', () => {
  it('passes top_k to Messages as top_k and to Gemini as topK, and refuses a top_k that is not an integer', () => {
    const claude = JSON.parse(String(sentRequest(anthropic, completionCall(anthropic, { model: 'c', prompt: 'p', top_k: 40 })).body));
    expect(claude.top_k).toBe(40);
    const gemini = JSON.parse(String(sentRequest(google, completionCall(google, { model: 'g', prompt: 'p', top_k: 40 })).body));
    expect(gemini.generationConfig.topK).toBe(40);
    expect(() => sentRequest(google, completionCall(google, { model: 'g', prompt: 'p', top_k: 'many' }))).toThrow(/'top_k'/);
  });

  it('leaves out Gemini penalties of 0', () => {
    const gemini = JSON.parse(String(sentRequest(google, completionCall(google, { model: 'g', prompt: 'p', presence_penalty: 0, frequency_penalty: 0 })).body));
    expect(gemini).not.toHaveProperty('generationConfig');
  });

  it('accepts a provider key the client forwards itself instead of a bearer token', () => {
    const call = { ...completionCall(anthropic, { model: 'c', prompt: 'p' }, {}), forwardHeaders: { 'x-api-key': 'sk-ant-forwarded' } };
    const request = sentRequest(anthropic, call);
    expect(request.headers['x-api-key']).toBe('sk-ant-forwarded');
    expect(() => sentRequest(anthropic, completionCall(anthropic, { model: 'c', prompt: 'p' }, {}))).toThrow(/needs an API key/);
  });
});
