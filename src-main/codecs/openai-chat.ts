// The Chat Completions codec lives in openai-chat/, one file a direction; this path stays for the modules
// that import it by its old name (the other codecs and usage-from-body.ts).
export * from './openai-chat/index.js';
