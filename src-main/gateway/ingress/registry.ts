// Every front door, by path (POST only): adding a dialect is its ingress file, its codec half, and one line here.
import { openaiChatIngress, openaiCompletionsIngress } from './openai.js';
import { anthropicCountTokensIngress, anthropicMessagesIngress } from './anthropic-messages.js';
import { openaiResponsesIngress } from './openai-responses.js';
import type { GenerationRoute } from './types.js';

export const GENERATION_ROUTES: ReadonlyMap<string, GenerationRoute> = new Map([
  ['/v1/chat/completions', { ingress: openaiChatIngress, operation: 'generate' }],
  ['/v1/completions', { ingress: openaiCompletionsIngress, operation: 'generate' }],
  ['/v1/messages', { ingress: anthropicMessagesIngress, operation: 'generate' }],
  ['/v1/messages/count_tokens', { ingress: anthropicCountTokensIngress, operation: 'count_tokens' }],
  ['/v1/responses', { ingress: openaiResponsesIngress, operation: 'generate' }],
]);
