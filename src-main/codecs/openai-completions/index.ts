// OpenAI's legacy Completions as a dialect, for providers that only chat: the request is decoded here, and
// canonical answers go back as `text_completion` objects and chunks through the Chat writers.
import type { DialectCodec } from '../canonical.js';
import { encodeOpenAIAnswer } from '../openai-chat/encode-response.js';
import { createOpenAIStreamEncoder, openaiFanOutTail } from '../openai-chat/encode-stream.js';
import { decodeCompletionRequest } from './decode-request.js';

export { PROMPT_REFUSALS, decodeCompletionRequest } from './decode-request.js';

export const openaiCompletionsDialect: DialectCodec = {
  dialect: 'openai-completions',
  decodeRequest: decodeCompletionRequest,
  encodeResponse: (answer) => encodeOpenAIAnswer('completions', answer),
  createStreamEncoder: (request, fanOut) => createOpenAIStreamEncoder('completions', request, fanOut),
  fanOutTail: (request, usage) => openaiFanOutTail('completions', request, usage),
  errorBody: (error) => error.toBody(),
};
