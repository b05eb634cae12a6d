// Bedrock streams `application/vnd.amazon.eventstream`: binary frames, each prefixed by its total length.
// The Smithy codec decodes one whole frame (and checks both CRCs); this module only cuts frames out.
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { UpstreamEvent } from './providers/types.js';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export async function* readEventStreamFrames(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<UpstreamEvent> {
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
