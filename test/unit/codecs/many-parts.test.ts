// A body may hold hundreds of thousands of content parts (10 MiB of `{"type":"text","text":"a"}`): the
// decoders take them one by one. A spread (`push(...parts)`) passes each as an argument and overflows the
// stack, which cut the caller's connection instead of serving or refusing it.
import { describe, expect, it } from 'vitest';
import { decodeChatRequest } from '../../../src-main/codecs/openai-chat/index.js';
import { decodeResponsesRequest } from '../../../src-main/codecs/openai-responses/index.js';

const MANY = 300_000;
const textParts = (type: string) => Array.from({ length: MANY }, () => ({ type, text: 'a' }));

describe('decoding a message of very many parts', () => {
  it('Chat: a leading system message keeps every part', () => {
    const request = decodeChatRequest({ model: 'm', messages: [{ role: 'system', content: textParts('text') }, { role: 'user', content: 'hi' }] });
    expect(request.system).toHaveLength(MANY);
  });

  it('Responses: a leading system message and an assistant message keep every part', () => {
    const request = decodeResponsesRequest({
      model: 'm',
      input: [
        { type: 'message', role: 'system', content: textParts('input_text') },
        { type: 'message', role: 'user', content: 'hi' },
        { type: 'message', role: 'assistant', content: textParts('output_text') },
      ],
    });
    expect(request.system).toHaveLength(MANY);
    expect(request.turns.at(-1)?.parts).toHaveLength(MANY);
  });
});
