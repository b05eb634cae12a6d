// Every front door, by path (POST only): adding a dialect is its ingress file, its codec half, and one line here.
import { openaiChatIngress, openaiCompletionsIngress } from './openai.js';
import { anthropicCountTokensIngress, anthropicMessagesIngress } from './anthropic-messages.js';
import { openaiResponsesIngress } from './openai-responses.js';
import { geminiIngress, readGeminiPath } from './gemini.js';
import type { GenerationRoute, Ingress } from './types.js';

export const GENERATION_ROUTES: ReadonlyMap<string, GenerationRoute> = new Map([
  ['/v1/chat/completions', { ingress: openaiChatIngress, operation: 'generate' }],
  ['/v1/completions', { ingress: openaiCompletionsIngress, operation: 'generate' }],
  ['/v1/messages', { ingress: anthropicMessagesIngress, operation: 'generate' }],
  ['/v1/messages/count_tokens', { ingress: anthropicCountTokensIngress, operation: 'count_tokens' }],
  ['/v1/responses', { ingress: openaiResponsesIngress, operation: 'generate' }],
]);

/**
 * Dialects whose path names the model (`modelFromPath`): their paths are read by the ingress's own reader,
 * only when no exact path above matches, so the exact paths keep their one map lookup.
 */
export const PATH_MODEL_DIALECTS: readonly { ingress: Ingress; readPath: typeof readGeminiPath }[] = [{ ingress: geminiIngress, readPath: readGeminiPath }];
