// Bedrock streams `application/vnd.amazon.eventstream`: binary frames, each prefixed by its total length.
// The Smithy codec decodes one whole frame (and checks both CRCs); this module only cuts frames out.
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import type { UpstreamEvent } from '../providers/types.js';
import { MAX_STREAM_FRAME_BYTES, oversizedStreamPiece } from './stream-bounds.js';

let codecLoaded: Promise<EventStreamCodec> | undefined;

/** Loaded with the first Bedrock stream, like the signer (bedrock.ts): no memory spent on it otherwise. */
function loadCodec(): Promise<EventStreamCodec> {
  codecLoaded ??= Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]).then(
    ([{ EventStreamCodec }, { fromUtf8, toUtf8 }]) => new EventStreamCodec(toUtf8, fromUtf8),
  );
  return codecLoaded;
}

/** A frame is its 12-byte prelude, headers, payload and a 4-byte CRC: nothing shorter is one. */
const MIN_FRAME_BYTES = 16;

/**
 * Cuts whole frames out of the byte stream. Chunks are kept in a list and joined once a frame is
 * complete (joining chunk by chunk was quadratic: a frame declaring 1.6 GB pinned the thread for minutes),
 * and a frame whose prelude declares more than the bound is refused before any of it is held.
 */
export async function* readEventStreamFrames(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<UpstreamEvent> {
  const codec = await loadCodec();
  let chunks: Buffer[] = [];
  let buffered = 0;
  /** The length the next frame's prelude declares, once its first 4 bytes are in. */
  let declared = -1;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    buffered += chunk.byteLength;
    if (declared < 0 && buffered >= 4) declared = frameLength(chunks);
    if (declared < 0 || buffered < declared) continue;
    let joined = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
    while (declared >= 0 && joined.length >= declared) {
      yield frameEvent(codec, joined.subarray(0, declared));
      joined = joined.subarray(declared);
      declared = joined.length >= 4 ? frameLength([joined]) : -1;
    }
    chunks = joined.length ? [joined] : [];
    buffered = joined.length;
  }
  if (buffered > 0) throw new Error(`The event stream ended inside a frame (${buffered} bytes left over)`);
}

/** The total length in a frame's prelude, read across chunks; refused when no frame may be that long. */
function frameLength(chunks: readonly Buffer[]): number {
  const head = chunks[0].length >= 4 ? chunks[0] : Buffer.concat(chunks).subarray(0, 4);
  const total = head.readUInt32BE(0);
  if (total > MAX_STREAM_FRAME_BYTES) throw oversizedStreamPiece('an event-stream frame', total);
  if (total < MIN_FRAME_BYTES) throw new Error(`The event stream declared a frame of ${total} bytes, shorter than any frame`);
  return total;
}

function frameEvent(codec: EventStreamCodec, frame: Uint8Array): UpstreamEvent {
  const message = codec.decode(frame);
  const headers: Record<string, string | number | boolean> = {};
  for (const [name, header] of Object.entries(message.headers)) {
    const value = header.value;
    headers[name] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
  }
  return { kind: 'frame', headers, payload: message.body };
}
