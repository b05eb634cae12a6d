// The legacy Completions dialect lives in openai-completions/; this path stays for the modules that import
// it by its old name.
export * from './openai-completions/index.js';
