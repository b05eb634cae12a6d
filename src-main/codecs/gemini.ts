// The path usage-from-body.ts (another part's file, not edited on this branch) reads Gemini usage from.
// The format itself is the gemini/ folder; at merge this import moves to './gemini/index.js' and the file goes.
export { usageOf } from './gemini/usage.js';
