// "Open in Playground": a logged request body becomes a Playground draft that sends the same request again.
import { describe, expect, it } from 'vitest';
import { draftFromLoggedRequest } from '../../../src-renderer/playground/draft-from-log';
import { buildParameterFields } from '../../../src-renderer/playground/parameters';

describe('opening a logged request in the Playground', () => {
  it('brings back a completion with every parameter, ready to run as it was', () => {
    const body = { model: 'gpt-3.5-turbo-instruct', prompt: 'Hi', max_tokens: 20, temperature: 0.2, n: 2, stop: '\n', logit_bias: { '50256': -100 }, echo: true, user: 'u1', stream: true, stream_options: { include_usage: true } };
    const draft = draftFromLoggedRequest('/v1/completions', JSON.stringify(body));
    expect(draft).toMatchObject({ mode: 'completion', model: 'gpt-3.5-turbo-instruct', prompt: 'Hi', messages: [] });
    const rebuilt = buildParameterFields('completion', draft!.parameters);
    expect(rebuilt.errors).toEqual({});
    expect({ model: draft!.model, prompt: draft!.prompt, ...rebuilt.fields }).toEqual(body);
  });

  it('splits a chat into its history and the last user message', () => {
    const body = { model: 'm', messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'First' }, { role: 'assistant', content: 'Ok' }, { role: 'user', content: 'Second' }], top_logprobs: 2, logprobs: true };
    const draft = draftFromLoggedRequest('/v1/chat/completions', JSON.stringify(body));
    expect(draft?.mode).toBe('chat');
    expect(draft?.prompt).toBe('Second');
    expect(draft?.messages.map((message) => message.content)).toEqual(['Be brief', 'First', 'Ok']);
    expect(draft?.parameters.topLogprobs).toBe('2');
  });

  it('brings back an array prompt as JSON text', () => {
    const draft = draftFromLoggedRequest('/v1/completions', JSON.stringify({ model: 'm', prompt: [[1, 2], [3]] }));
    expect(draft).toMatchObject({ prompt: '[[1,2],[3]]', promptIsJson: true });
  });

  it('offers nothing for other paths or bodies that were not stored', () => {
    expect(draftFromLoggedRequest('/v1/embeddings', '{}')).toBeNull();
    expect(draftFromLoggedRequest('/v1/completions', null)).toBeNull();
    expect(draftFromLoggedRequest('/v1/completions', 'not json')).toBeNull();
  });
});
