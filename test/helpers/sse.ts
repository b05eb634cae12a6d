// Reads SSE text in tests: as a client sees it (the JSON of each `data:` line, whether `[DONE]` ended it), and as the upstream events a codec's stream decoder reads.
import type { UpstreamEvent } from '../../src-main/codecs/canonical.js';

export interface ReadStream {
  chunks: Record<string, unknown>[];
  done: boolean;
  raw: string;
}

export function readDataLines(raw: string): ReadStream {
  const chunks: Record<string, unknown>[] = [];
  let done = false;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice(6);
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    chunks.push(JSON.parse(data) as Record<string, unknown>);
  }
  return { chunks, done, raw };
}

interface ChunkChoice {
  text?: string;
  delta?: { content?: string; role?: string };
  finish_reason?: string | null;
}

/** The generated text of a stream's chunks (first choice), completion or chat. */
export function streamedText(chunks: Record<string, unknown>[]): string {
  return chunks
    .flatMap((chunk) => (chunk.choices as ChunkChoice[] | undefined) ?? [])
    .map((choice) => choice.text ?? choice.delta?.content ?? '')
    .join('');
}

export function finishReasons(chunks: Record<string, unknown>[]): (string | null | undefined)[] {
  return chunks.flatMap((chunk) => ((chunk.choices as ChunkChoice[] | undefined) ?? []).map((choice) => choice.finish_reason)).filter((reason) => reason != null);
}

/** SSE text as the upstream events a stream decoder reads. */
export function upstreamSseEvents(textOut: string): UpstreamEvent[] {
  return textOut
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      }
      return { kind: 'sse' as const, ...(event !== undefined ? { event } : {}), data: data.join('\n') };
    });
}
