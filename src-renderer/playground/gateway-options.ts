// The gateway's own per-request headers (CONTRACT §3) as Playground fields: trace id, metadata,
// retries and timeout. They carry no secret, so snippets include them as they are.

import { REQUEST_TIMEOUT_BOUND, RETRY_COUNT_BOUND } from '../../src-main/core/spec-bounds';

export { REQUEST_TIMEOUT_BOUND, RETRY_COUNT_BOUND };

export interface GatewayOptionValues {
  traceId: string;
  metadata: string;
  retryCount: string;
  requestTimeoutMs: string;
}

export const EMPTY_GATEWAY_OPTIONS: GatewayOptionValues = { traceId: '', metadata: '', retryCount: '', requestTimeoutMs: '' };

export interface BuiltGatewayOptions {
  headers: Record<string, string>;
  errors: Partial<Record<keyof GatewayOptionValues, string>>;
}

function integerIn(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

export function buildGatewayOptionHeaders(values: GatewayOptionValues): BuiltGatewayOptions {
  const headers: Record<string, string> = {};
  const errors: BuiltGatewayOptions['errors'] = {};
  if (values.traceId.trim()) headers['x-gateway-trace-id'] = values.traceId.trim();

  if (values.metadata.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(values.metadata);
    } catch {
      parsed = undefined;
    }
    const isObjectOfStrings = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((value) => typeof value === 'string');
    if (isObjectOfStrings) headers['x-gateway-metadata'] = JSON.stringify(parsed);
    else errors.metadata = 'Metadata must be a JSON object of strings, such as {"team": "search"}';
  }

  if (values.retryCount.trim()) {
    const retries = integerIn(values.retryCount, RETRY_COUNT_BOUND.min, RETRY_COUNT_BOUND.max);
    if (retries === null) errors.retryCount = `Retries must be a whole number from ${RETRY_COUNT_BOUND.min} to ${RETRY_COUNT_BOUND.max}`;
    else headers['x-gateway-retry-count'] = String(retries);
  }

  if (values.requestTimeoutMs.trim()) {
    const timeout = integerIn(values.requestTimeoutMs, REQUEST_TIMEOUT_BOUND.min, REQUEST_TIMEOUT_BOUND.max);
    if (timeout === null) errors.requestTimeoutMs = `Timeout must be ${REQUEST_TIMEOUT_BOUND.min} to ${REQUEST_TIMEOUT_BOUND.max.toLocaleString('en-US')} ms`;
    else headers['x-gateway-request-timeout'] = String(timeout);
  }
  return { headers, errors };
}
