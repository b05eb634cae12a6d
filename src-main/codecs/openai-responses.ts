// The Responses codec lives in openai-responses/, one file a direction; this path stays for the modules
// that import it by its old name (plan-call.ts, usage-from-body.ts).
export * from './openai-responses/index.js';
