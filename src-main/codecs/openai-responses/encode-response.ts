// A canonical answer → a whole Response object for a Responses client: the held answer runs through the same
// writer as a stream, so the two cannot disagree.
import { answerEvents, type CanonicalAnswer, type CanonicalRequest } from '../canonical.js';
import { ResponsesWriter } from './encode-stream.js';

export function encodeResponsesAnswer(answer: CanonicalAnswer, request: CanonicalRequest): object {
  const writer = new ResponsesWriter(request);
  for (const event of answerEvents(answer)) writer.onEvent(event);
  writer.onEnd();
  return writer.response();
}
