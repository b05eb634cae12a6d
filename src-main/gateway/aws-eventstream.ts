// Bedrock streams `application/vnd.amazon.eventstream`: binary frames, each prefixed by its total length.
// The Smithy codec decodes one whole frame (and checks both CRCs); this module only cuts frames out.
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import type { UpstreamEvent } from '../providers/types.js';

let codecLoaded: Promise<EventStreamCodec> | undefined;

/** Loaded with the first Bedrock stream, like the signer (bedrock.ts): no memory spent on it otherwise. */
function loadCodec(): Promise<EventStreamCodec> {
  codecLoaded ??= Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]).then(
    ([{ EventStreamCodec }, { fromUtf8, toUtf8 }]) => new EventStreamCodec(toUtf8, fromUtf8),
  );
  return codecLoaded;
}

export async function* readEventStreamFrames(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<UpstreamEvent> {
  const codec = await loadCodec();
  let buffered = Buffer.alloc(0);
  for await (const chunk of body) {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : Buffer.from(chunk);
    while (buffered.length >= 4) {
      const total = buffered.readUInt32BE(0);
      if (buffered.length < total) break;
      const message = codec.decode(buffered.subarray(0, total));
      buffered = buffered.subarray(total);
      const headers: Record<string, string | number | boolean> = {};
      for (const [name, header] of Object.entries(message.headers)) {
        const value = header.value;
        headers[name] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
      }
      yield { kind: 'frame', headers, payload: message.body };
    }
  }
  if (buffered.length > 0) throw new Error(`The event stream ended inside a frame (${buffered.length} bytes left over)`);
}
