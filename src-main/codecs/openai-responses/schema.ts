// What a Responses provider (OpenAI, Azure OpenAI) sends: the Response object and the stream's events, as
// OpenAI documents them. Only what the codec reads is typed — the Response's own fields, the three output item
// types it reads (message, function_call, reasoning) and the events that carry them; other item types
// (web_search_call, mcp_call …) and events (content_part.*, *.done …) pass through unchecked.
import { z } from 'zod';

export const responsesUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type ResponsesUsage = z.infer<typeof responsesUsageSchema>;

const tokenLogprobSchema = z.looseObject({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(z.looseObject({ token: z.string(), logprob: z.number() })).nullish(),
});
export type ResponsesTokenLogprob = z.infer<typeof tokenLogprobSchema>;
const logprobsSchema = z.array(tokenLogprobSchema).nullish();

const messageItemSchema = z.looseObject({
  type: z.literal('message'),
  content: z
    .array(z.looseObject({ type: z.string(), text: z.string().nullish(), refusal: z.string().nullish(), logprobs: logprobsSchema }))
    .nullish(),
});
const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().nullish(),
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
  arguments: z.string().nullish(),
});
const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  summary: z.array(z.looseObject({ text: z.string().nullish() })).nullish(),
  content: z.array(z.looseObject({ text: z.string().nullish() })).nullish(),
  encrypted_content: z.string().nullish(),
});
export type FunctionCallItem = z.infer<typeof functionCallItemSchema>;
export type ReasoningItem = z.infer<typeof reasoningItemSchema>;

/** The output item types the codec reads, each checked by its own schema when it is read. */
export const OUTPUT_ITEM_SCHEMAS = { message: messageItemSchema, function_call: functionCallItemSchema, reasoning: reasoningItemSchema } as const;
export type ReadItem = z.infer<(typeof OUTPUT_ITEM_SCHEMAS)[keyof typeof OUTPUT_ITEM_SCHEMAS]>;

/** Any output item: its type, then whatever that type holds. */
const anyItemSchema = z.looseObject({ type: z.string() });

export const responseSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  status: z.string().nullish(),
  error: z.looseObject({ message: z.string().nullish(), code: z.string().nullish() }).nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  output: z.array(anyItemSchema).nullish(),
  usage: responsesUsageSchema.nullish(),
});
export type ResponseObject = z.infer<typeof responseSchema>;

const outputIndex = z.number().nullish();
const responseEvent = z.looseObject({ response: responseSchema.nullish() });
const itemEvent = z.looseObject({ output_index: outputIndex, item: anyItemSchema });
const deltaEvent = z.looseObject({ output_index: outputIndex, delta: z.string().nullish() });
const errorFields = { message: z.string().nullish(), type: z.string().nullish(), code: z.string().nullish() };

/** The events the codec reads, by type; an event of another type is not checked. */
export const STREAM_EVENT_SCHEMAS = {
  'response.created': responseEvent,
  'response.in_progress': responseEvent,
  'response.queued': responseEvent,
  'response.completed': responseEvent,
  'response.incomplete': responseEvent,
  'response.failed': responseEvent,
  'response.output_item.added': itemEvent,
  'response.output_item.done': itemEvent,
  'response.output_text.delta': deltaEvent.extend({ logprobs: logprobsSchema }),
  'response.refusal.delta': deltaEvent,
  'response.reasoning_summary_text.delta': deltaEvent.extend({ summary_index: z.number().nullish(), content_index: z.number().nullish() }),
  'response.reasoning_text.delta': deltaEvent.extend({ summary_index: z.number().nullish(), content_index: z.number().nullish() }),
  'response.function_call_arguments.delta': deltaEvent,
  // OpenAI's `{type:'error', error:{…}}`; some servers put the fields on the event itself.
  error: z.looseObject({ ...errorFields, error: z.looseObject(errorFields).nullish() }),
} as const;
export type StreamEventSchemas = typeof STREAM_EVENT_SCHEMAS;
