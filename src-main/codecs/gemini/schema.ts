// What Google's generateContent / streamGenerateContent sends (Gemini API reference: GenerateContentResponse),
// as far as the gateway reads it: types checked where the API fixes them, unknown fields passed through.
// A stream is many such responses, so every field is optional but the function call's name.
import { z } from 'zod';
import { jsonObject } from '../provider-schema.js';

const count = z.number().optional();

export const usageMetadata = z.looseObject({
  promptTokenCount: count,
  candidatesTokenCount: count,
  toolUsePromptTokenCount: count,
  thoughtsTokenCount: count,
  cachedContentTokenCount: count,
  totalTokenCount: count,
});

const part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z.looseObject({ id: z.string().optional(), name: z.string(), args: jsonObject.optional() }).optional(),
});
export type GeminiAnswerPart = z.output<typeof part>;

const tokenCandidate = z.looseObject({ token: z.string().optional(), logProbability: z.number().optional() });

const candidate = z.looseObject({
  content: z.looseObject({ role: z.string().optional(), parts: z.array(part).optional() }).optional(),
  finishReason: z.string().optional(),
  logprobsResult: z
    .looseObject({
      chosenCandidates: z.array(tokenCandidate).optional(),
      topCandidates: z.array(z.looseObject({ candidates: z.array(tokenCandidate).optional() })).optional(),
    })
    .optional(),
});
export type GeminiCandidate = z.output<typeof candidate>;

/** google.rpc.Status, as an answer or a stream event that failed carries it. */
export const googleError = z.looseObject({ code: z.number().optional(), message: z.string().optional(), status: z.string().optional() });

export const generateContentResponse = z.looseObject({
  candidates: z.array(candidate).optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usageMetadata.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
  error: googleError.optional(),
});
export type GenerateContentResponse = z.output<typeof generateContentResponse>;
