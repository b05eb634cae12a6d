// The path usage-from-body.ts (another part's file, not edited on this branch) reads Messages usage from.
// The format itself is the anthropic-messages/ folder; at merge this import moves to
// './anthropic-messages/index.js' and the file goes.
export { canonicalUsage, readUsage, type MessagesUsage } from './anthropic-messages/usage.js';
