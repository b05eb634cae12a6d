// Converse's stop reasons, read by the answer and the stream decoders alike.
import { randomUUID } from 'node:crypto';
import type { FinishReason } from '../canonical.js';

/** Converse stop reasons → canonical finish reasons. */
export function mapStopReason(stopReason: string | undefined): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'tool_use':
      return 'tool_calls';
    case 'stop_sequence':
      return 'stop_sequence';
    default:
      // end_turn, and reasons added later.
      return 'stop';
  }
}

/** Converse answers carry no id: one is made per answer. */
export const answerId = (): string => `bedrock-${randomUUID()}`;
