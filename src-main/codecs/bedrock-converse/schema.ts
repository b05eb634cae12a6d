// What Bedrock's Converse API sends (Amazon Bedrock API reference: ConverseResponse, ConverseStreamOutput),
// as far as the gateway reads it: types checked where the API fixes them, unknown fields passed through.
// Fields the API always sends but test doubles and older models leave out stay optional, as the reads
// before these schemas took them.
import { z } from 'zod';

export const converseUsage = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  cacheReadInputTokens: z.number().optional(),
  cacheWriteInputTokens: z.number().optional(),
});

/** ReasoningContentBlock (an answer's) and ReasoningContentBlockDelta (a stream's) have these fields, one at a time. */
const reasoningText = z.looseObject({ text: z.string().optional(), signature: z.string().optional() });

const toolUse = z.looseObject({ toolUseId: z.string(), name: z.string(), input: z.unknown() });

/** ContentBlock: a union by member name; the kinds the gateway does not read (image, document, citations …) pass through. */
const contentBlock = z.looseObject({
  text: z.string().optional(),
  toolUse: toolUse.optional(),
  reasoningContent: z.looseObject({ reasoningText: reasoningText.optional(), redactedContent: z.string().optional() }).optional(),
});

export const converseResponse = z.looseObject({
  output: z.looseObject({ message: z.looseObject({ role: z.string().optional(), content: z.array(contentBlock) }).optional() }).optional(),
  stopReason: z.string().optional(),
  usage: converseUsage.optional(),
});
export type ConverseResponse = z.output<typeof converseResponse>;
export type ConverseReasoning = NonNullable<z.output<typeof contentBlock>['reasoningContent']>;

// ---- ConverseStream: one payload per event frame, by its `:event-type` header ----------------------------

export const contentBlockStart = z.looseObject({
  contentBlockIndex: z.number(),
  start: z.looseObject({ toolUse: z.looseObject({ toolUseId: z.string(), name: z.string() }).optional() }).optional(),
});

export const contentBlockDelta = z.looseObject({
  contentBlockIndex: z.number(),
  delta: z.looseObject({
    text: z.string().optional(),
    toolUse: z.looseObject({ input: z.string() }).optional(),
    reasoningContent: z.looseObject({ text: z.string().optional(), signature: z.string().optional(), redactedContent: z.string().optional() }).optional(),
  }),
});

export const contentBlockStop = z.looseObject({ contentBlockIndex: z.number() });

export const messageStop = z.looseObject({ stopReason: z.string() });

export const streamMetadata = z.looseObject({ usage: converseUsage.optional() });

/** An exception frame's payload: `message` (the SDK's shape) or `Message` (some services'). */
export const exceptionPayload = z.looseObject({ message: z.string().optional(), Message: z.string().optional() });
