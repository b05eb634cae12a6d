// A value checked against a zod schema, refused as the contract's 400: the first issue, named by its path.
import { ZodError, type z } from 'zod';
import { invalidRequest, type GatewayError } from './errors.js';

/** How an issue is worded; by default `'<path>': <zod's message>`. */
export type IssueWording = (issue: z.core.$ZodIssue, field: string) => string;

const defaultWording: IssueWording = (issue, field) => `'${field || 'body'}': ${issue.message}`;

/** What a refusal's `param` names: the issue's whole path (dotted), or only its top-level field (a form shows it there). */
export type ParamOf = 'path' | 'top-level field';

/** The 400 for a zod failure: its first issue, its path (dotted) in the message and as the param, null for the whole body. */
export function invalidFromZod(error: ZodError, wording: IssueWording = defaultWording, paramOf: ParamOf = 'path'): GatewayError {
  const issue = error.issues[0];
  const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.map(String).join('.');
  const param = paramOf === 'path' ? field : String(issue.path[0] ?? '');
  return invalidRequest(wording(issue, field), param || null);
}

/** The parsed value, or the 400 that names what is wrong with it (an absent body is taken as `{}`). */
export function parseOrRefuse<T>(schema: z.ZodType<T>, value: unknown, wording?: IssueWording): T {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalidFromZod(result.error, wording);
  return result.data;
}

/** Runs `work`, turning a ZodError it throws (a store's own validation) into the 400. */
export async function refusingZodErrors<T>(work: () => Promise<T>, paramOf: ParamOf = 'path'): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ZodError) throw invalidFromZod(error, defaultWording, paramOf);
    throw error;
  }
}
