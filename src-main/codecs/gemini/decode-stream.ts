// `streamGenerateContent?alt=sse` → canonical events: each `data:` is a GenerateContentResponse; there is no [DONE].
import type { CanonicalEvent, StreamDecoder, UpstreamEvent } from '../canonical.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { parseProviderEvent } from '../provider-schema.js';
import { notJson } from './errors.js';
import { ResponseReader } from './read-response.js';
import { generateContentResponse } from './schema.js';

export function createStreamDecoder(): StreamDecoder {
  const reader = new ResponseReader();
  return {
    framing: 'sse',
    onEvent(event: UpstreamEvent): CanonicalEvent[] {
      if (event.kind !== 'sse') return [];
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        throw notJson(event.data);
      }
      return reader.read(parseProviderEvent(generateContentResponse, json));
    },
    onEnd(): CanonicalEvent[] {
      if (!reader.finished) throw new ProviderStreamError('The provider stream ended before a finishReason', 'api_error', 'stream_incomplete');
      return [];
    },
  };
}
