// Reads an SSE body as a client sees it: the JSON of each `data:` line, and whether `[DONE]` ended it.

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
