// The bounds and defaults of spec §2.1 / §8, in one place: the validator and the UI's controls
// both read them, so a bound changed here changes everywhere.

export interface NumericBound {
  min: number;
  max: number;
  integer: boolean;
  default?: number;
}

export const COMPLETION_BOUNDS = {
  best_of: { min: 0, max: 20, integer: true, default: 1 },
  frequency_penalty: { min: -2, max: 2, integer: false, default: 0 },
  presence_penalty: { min: -2, max: 2, integer: false, default: 0 },
  logprobs: { min: 0, max: 5, integer: true },
  max_tokens: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true, default: 16 },
  n: { min: 1, max: 128, integer: true, default: 1 },
  // As written in the spec; both ends are 2^63 once read as a double, like any JSON number parser reads them.
  seed: { min: -9223372036854776000, max: 9223372036854776000, integer: true },
  temperature: { min: 0, max: 2, integer: false, default: 1 },
  top_p: { min: 0, max: 1, integer: false, default: 1 },
} as const satisfies Record<string, NumericBound>;

export const LOGIT_BIAS_BOUND = { min: -100, max: 100 } as const;
export const MAX_STOP_SEQUENCES = 4;
/** Chat's `top_logprobs` (OpenAI chat API): 0 to 20. */
export const CHAT_TOP_LOGPROBS_BOUND = { min: 0, max: 20, integer: true } as const;

/** `x-gateway-retry-count` (CONTRACT §3). */
export const RETRY_COUNT_BOUND = { min: 0, max: 5 } as const;
/** `x-gateway-request-timeout` in milliseconds; without it a call may take up to 10 minutes. */
export const REQUEST_TIMEOUT_BOUND = { min: 1, max: 10 * 60_000 } as const;
