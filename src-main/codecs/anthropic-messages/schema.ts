// What Anthropic's Messages API sends (API reference: Messages, Streaming Messages), as far as the gateway
// reads it: types checked where the API fixes them, unknown fields and block kinds (server tools, citations …)
// passed through. Fields real answers always carry but test doubles and proxies leave out stay optional,
// as the reads before these schemas took them.
import { z } from 'zod';
import { jsonObject } from '../provider-schema.js';

const text = z.string().optional();

/** Usage: cumulative counts; a stream's later event may leave out what an earlier one gave. */
export const messagesUsage = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

/** A content block of an answer (or the start of one in a stream), by `type`. */
const contentBlock = z.looseObject({
  type: z.string(),
  text,
  thinking: text,
  signature: text,
  data: text,
  id: text,
  name: text,
  input: jsonObject.optional(),
});

const stopFields = { stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() };

export const message = z.looseObject({
  id: text,
  model: text,
  content: z.array(contentBlock).optional(),
  ...stopFields,
  usage: messagesUsage.nullish(),
});
export type MessagesAnswer = z.output<typeof message>;
export type StopFields = { stop_reason?: string | null; stop_sequence?: string | null };

// ---- Streaming: one schema per event `type` (ping and types added later are not read) -------------------

export const messageStart = z.looseObject({ message: z.looseObject({ id: text, model: text, usage: messagesUsage.nullish() }) });

export const contentBlockStart = z.looseObject({ index: z.number(), content_block: contentBlock });

export const contentBlockDelta = z.looseObject({
  index: z.number(),
  delta: z.looseObject({ type: z.string(), text, thinking: text, signature: text, partial_json: text }),
});

export const contentBlockStop = z.looseObject({ index: z.number() });

export const messageDelta = z.looseObject({ delta: z.looseObject(stopFields), usage: messagesUsage.nullish() });

export const streamError = z.looseObject({ error: z.looseObject({ type: text, message: text }) });
