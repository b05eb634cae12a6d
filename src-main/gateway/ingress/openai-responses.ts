// `POST /v1/responses` (Codex CLI, the openai SDKs' responses.create): routed after a light check, so that
// a body for a Responses-native provider goes up byte for byte; errors in OpenAI's shape, and a failure
// inside a stream as the `error` event Codex reads.
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { answersAsked, fieldOf, positiveCount, readStreamFlag, requireModel, requireObject } from './openai.js';
import { checkPromptFits } from '../context-window.js';
import { openaiResponsesDialect } from '../../codecs/openai-responses/index.js';
import type { Ingress } from './types.js';

export const openaiResponsesIngress: Ingress = {
  dialect: 'openai-responses',
  codec: openaiResponsesDialect,
  readRequest(json) {
    const body = requireObject(json);
    const model = requireModel(body);
    if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) {
      throw invalidRequest("'input' must be a string or an array of input items", 'input');
    }
    return { model, stream: readStreamFlag(body), n: 1, body };
  },
  errorBody: (error) => error.toBody(),
  streamErrorEvent: (error: GatewayError) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', code: error.code ?? error.type, message: error.message, param: error.param })}\n\n`,
  maxOutputTokens: (body) => positiveCount(fieldOf(body, 'max_output_tokens')),
  answersBilled: answersAsked,
  checkWindow(call) {
    return checkPromptFits(call, openaiResponsesIngress.maxOutputTokens(call.body));
  },
};
