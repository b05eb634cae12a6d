// What a Responses body means the same way in both directions: an image's URL, the `include` that asks for
// log probabilities, a field that is there.
import { invalidRequest } from '../../core/errors.js';
import type { ImageSource } from '../canonical.js';

export const present = (value: unknown): boolean => value !== undefined && value !== null;

export const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

/** An image URL or data URL as the canonical image source; a data URL that is not base64 is refused. */
export function imageSource(url: string, param: string): ImageSource {
  if (!url.startsWith('data:')) return { kind: 'url', url };
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (!match) throw invalidRequest(`'${param}' must be an http(s) URL or a base64 data URL (data:image/png;base64,…)`, param);
  return { kind: 'base64', mediaType: match[1], data: match[2] };
}

export const imageUrl = (source: ImageSource): string => (source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`);
