// Turns a logged event stream back into what the client read: the text of each choice, and the
// events one by one for the raw view. Accepts SSE text or a JSON array of event objects.
import { readCompletionPiece } from '../api/gateway-client';

export interface AssembledStream {
  choices: string[];
  finishReasons: Array<string | null>;
  events: string[];
  errors: string[];
}

function eventPayloads(body: string): string[] {
  const trimmed = body.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    } catch {
      // Not a JSON array after all: read it as SSE text.
    }
  }
  const payloads: string[] = [];
  let dataLines: string[] = [];
  const flush = () => {
    if (dataLines.length) payloads.push(dataLines.join('\n'));
    dataLines = [];
  };
  for (const line of body.split(/\r?\n/)) {
    if (line === '') flush();
    else if (line.startsWith('data:')) dataLines.push(line.slice(5).replace(/^ /, ''));
  }
  flush();
  return payloads;
}

export function assembleStream(body: string): AssembledStream {
  const result: AssembledStream = { choices: [], finishReasons: [], events: [], errors: [] };
  for (const payload of eventPayloads(body)) {
    result.events.push(payload);
    if (payload.trim() === '[DONE]') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      continue;
    }
    const piece = readCompletionPiece(parsed);
    if (piece.error) result.errors.push(piece.error);
    for (const choice of piece.choices) {
      result.choices[choice.index] = (result.choices[choice.index] ?? '') + choice.text;
      if (choice.finishReason) result.finishReasons[choice.index] = choice.finishReason;
    }
  }
  for (let index = 0; index < result.choices.length; index++) result.choices[index] ??= '';
  return result;
}

/** Whether a logged body looks like an event stream rather than one JSON document. */
export function looksLikeEventStream(body: string): boolean {
  return /^(data|event|id|retry):/m.test(body.slice(0, 2000));
}
