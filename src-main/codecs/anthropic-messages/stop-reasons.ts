// Messages stop reasons both ways: Anthropic's → canonical finish reasons (answers and streams), and back.
import type { CanonicalEvent, FinishReason } from '../canonical.js';
import type { StopFields } from './schema.js';

export function mapStopReason(stopReason: unknown): FinishReason | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'pause_turn':
      return 'pause';
    // end_turn and anything newer.
    default:
      return 'stop';
  }
}

export function finishEvent(delta: StopFields): CanonicalEvent[] {
  const reason = mapStopReason(delta.stop_reason);
  if (!reason) return [];
  const stopSequence = delta.stop_sequence ?? undefined;
  return [{ type: 'finish', reason, ...(reason === 'stop_sequence' && stopSequence !== undefined ? { stopSequence } : {}) }];
}

export const STOP_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  stop_sequence: 'stop_sequence',
  pause: 'pause_turn',
  error: 'end_turn',
};
