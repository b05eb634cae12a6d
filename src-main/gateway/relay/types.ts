// What every relay of a provider's answer is given and gives back.
import type { AbortLike } from '../../core/request-abort.js';
import type { GatewayError } from '../../core/errors.js';
import type { ProviderAdapter } from '../../providers/types.js';
import type { Usage } from '../../codecs/canonical.js';
import type { Ingress } from '../ingress/types.js';

export interface RelayOutcome {
  status: number;
  ttfbMs: number | null;
  error: string | null;
  /** What the client received (capped), for the log. */
  responseBody: string | null;
  /** The usage was counted by the gateway, the provider reporting none (embeddings from Gemini, say). */
  usageEstimated?: boolean;
  /**
   * What the answer reported it used, read once, by the relay: from the events it translated, or from the
   * answer it passed through (usage-from-body.ts); undefined when it reported none.
   */
  usage?: Usage;
}

export interface RelayOptions {
  adapter: ProviderAdapter;
  stream: boolean;
  started: number;
  signal: AbortLike;
  secrets: readonly string[];
  /** The client's dialect, whose shape errors take; absent for model lists (OpenAI's shape). */
  ingress: Ingress | undefined;
}

/** An error body in the client's dialect (the contract's shape for the OpenAI paths and model lists). */
export function renderError(options: RelayOptions, error: GatewayError): object {
  return options.ingress ? options.ingress.errorBody(error) : error.toBody();
}
