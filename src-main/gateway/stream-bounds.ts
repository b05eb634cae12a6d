// The largest piece of a provider's stream the gateway holds: an SSE line or event, a Bedrock
// event-stream frame. Whole answers are capped at 32 MB (relay/provider-answer.ts); without this a stream could grow
// one line (or declare one frame) without end and fill the gateway's memory.
import { GatewayError } from '../core/errors.js';

export const MAX_STREAM_FRAME_BYTES = 16 * 1024 * 1024;

/** Without `provider`, the relay names it (failStream). */
export const oversizedStreamPiece = (what: string, size: number, provider?: string): GatewayError =>
  new GatewayError(502, 'gateway_error', `The provider stream sent ${what} of ${size} bytes or more, over the ${MAX_STREAM_FRAME_BYTES}-byte limit`, null, 'bad_provider_response', provider);

const LF = 0x0a;
const CR = 0x0d;

/**
 * The length of the line a relayed byte stream is in, chunk by chunk: a passthrough stream is not parsed,
 * but a line that never ends must not go on for ever either (the client would hold it whole).
 */
export class LineLength {
  private current = 0;
  /** Adds a chunk; true once the open line is over the bound. */
  overAfter(chunk: Uint8Array): boolean {
    // One pass from the chunk's end to its last LF or CR: most chunks end in one, so this reads a byte or two
    // (two native searches, a view and their calls were a few hundred ns of every relayed chunk).
    let at = chunk.length - 1;
    while (at >= 0 && chunk[at] !== LF && chunk[at] !== CR) at--;
    this.current = at < 0 ? this.current + chunk.length : chunk.length - at - 1;
    return this.current > MAX_STREAM_FRAME_BYTES;
  }
}
