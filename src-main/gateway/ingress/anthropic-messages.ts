// `POST /v1/messages` (Claude Code, the anthropic SDKs): routed after a light check, so that a body for an
// Anthropic-format provider goes up byte for byte with whatever fields the next release adds; errors in
// Anthropic's `{"type":"error","error":{type,message}}` shape.
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { anthropicErrorType, anthropicMessagesDialect } from '../../codecs/anthropic-messages/index.js';
import { answersAsked, fieldOf, positiveCount, readStreamFlag, requireModel, requireObject } from './openai.js';
import { checkPromptFits } from '../context-window.js';
import type { Ingress } from './types.js';

function anthropicError(error: GatewayError): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: anthropicErrorType(error.status, error.type), message: error.message } };
}

export const anthropicMessagesIngress: Ingress = {
  dialect: 'anthropic-messages',
  codec: anthropicMessagesDialect,
  readRequest(json) {
    const body = requireObject(json);
    const model = requireModel(body);
    if (!Array.isArray(body.messages)) throw invalidRequest("'messages' is required: an array of messages", 'messages');
    return { model, stream: readStreamFlag(body), n: 1, body };
  },
  errorBody: anthropicError,
  streamErrorEvent: (error) => `event: error\ndata: ${JSON.stringify(anthropicError(error))}\n\n`,
  maxOutputTokens: (body) => positiveCount(fieldOf(body, 'max_tokens')),
  answersBilled: answersAsked,
  checkWindow(call) {
    return checkPromptFits(call, anthropicMessagesIngress.maxOutputTokens(call.body));
  },
};

/** `POST /v1/messages/count_tokens`: the same body without `max_tokens` or `stream`. */
export const anthropicCountTokensIngress: Ingress = {
  ...anthropicMessagesIngress,
  readRequest(json) {
    const body = requireObject(json);
    const model = requireModel(body);
    if (!Array.isArray(body.messages)) throw invalidRequest("'messages' is required: an array of messages", 'messages');
    // The count takes no `max_tokens`; the Messages decoder wants one, and it changes no count.
    return { model, stream: false, n: 1, body: { max_tokens: 1, ...body } };
  },
};
