// What a Chat Completions provider sends: the `chat.completion` answer and each `chat.completion.chunk`, as
// OpenAI documents them, plus what OpenAI-compatible servers add that the codec reads (`reasoning_content`
// from DeepSeek and vLLM, `reasoning` from Ollama and OpenRouter, an `error` in a 200 answer or mid-stream).
// Types are OpenAI's; every field may be absent or null (servers leave out what they do not have), and
// fields the codec does not read pass through unchecked.
import { z } from 'zod';

export const chatUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type ChatUsage = z.infer<typeof chatUsageSchema>;

/** OpenAI's `{message, type, code}`; OpenRouter's code is the HTTP status; a few servers send a bare string. */
export const chatErrorSchema = z.union([
  z.looseObject({ message: z.string().nullish(), type: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }),
  z.string(),
]);
export type ChatError = z.infer<typeof chatErrorSchema>;

const tokenLogprobSchema = z.looseObject({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(z.looseObject({ token: z.string(), logprob: z.number() })).nullish(),
});
export const chatLogprobsSchema = z.looseObject({ content: z.array(tokenLogprobSchema).nullish() });
export type ChatLogprobs = z.infer<typeof chatLogprobsSchema>;

/** A whole call; `arguments` is JSON text, or (some local servers) the object itself. */
const functionCallSchema = z.looseObject({
  name: z.string().nullish(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
});

const messageSchema = z.looseObject({
  // A string; some servers send text parts instead.
  content: z.union([z.string(), z.array(z.looseObject({ text: z.string().nullish() }))]).nullish(),
  refusal: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(z.looseObject({ id: z.string().nullish(), function: functionCallSchema.nullish() })).nullish(),
  // The deprecated single call of older servers.
  function_call: functionCallSchema.nullish(),
});

export const chatCompletionSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(z.looseObject({ index: z.number().nullish(), message: messageSchema.nullish(), finish_reason: z.string().nullish(), logprobs: chatLogprobsSchema.nullish() }))
    .nullish(),
  usage: chatUsageSchema.nullish(),
  error: chatErrorSchema.nullish(),
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

/** One piece of a tool call: `index` (and on its first piece `id` and the name), then argument text. */
const toolCallDeltaSchema = z.looseObject({
  index: z.number().nullish(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
export type ChatToolCallDelta = z.infer<typeof toolCallDeltaSchema>;

export const chatChunkSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().nullish(),
        delta: z
          .looseObject({ content: z.string().nullish(), reasoning_content: z.string().nullish(), reasoning: z.string().nullish(), tool_calls: z.array(toolCallDeltaSchema).nullish() })
          .nullish(),
        finish_reason: z.string().nullish(),
        logprobs: chatLogprobsSchema.nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
  error: chatErrorSchema.nullish(),
});
export type ChatChunk = z.infer<typeof chatChunkSchema>;
