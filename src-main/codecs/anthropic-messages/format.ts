// What every file of the Messages format shares: its name as a dialect, and message ids.
export const DIALECT = 'anthropic-messages' as const;

export const fallbackId = (): string => `msg_${Date.now().toString(36)}`;

/** Messages ids start with `msg_`; another provider's id gets the prefix. */
export const messageId = (id: string): string => (id.startsWith('msg_') ? id : id ? `msg_${id}` : fallbackId());
