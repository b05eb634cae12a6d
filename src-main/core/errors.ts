// The one error type of the gateway and the one JSON shape every error leaves in (CONTRACT §4).

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'gateway_error'
  | 'api_error';

export interface ErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | number | null;
    provider?: string;
    /** Every problem, when several were found at once (GatewayErrorList). */
    errors?: { message: string; param: string | null }[];
  };
}

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType | string,
    message: string,
    readonly param: string | null = null,
    readonly code: string | number | null = null,
    readonly provider?: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  toBody(): ErrorBody {
    return errorBody(this.type, this.message, this.param, this.code, this.provider);
  }
}

/** Several problems found at once (a routes file): `errors` holds each, the message all of them. */
export class GatewayErrorList extends GatewayError {
  constructor(
    message: string,
    readonly errors: readonly GatewayError[],
  ) {
    super(errors[0]?.status ?? 400, errors[0]?.type ?? 'invalid_request_error', message, errors[0]?.param ?? null, errors[0]?.code ?? null);
  }

  override toBody(): ErrorBody {
    const body = super.toBody();
    body.error.errors = this.errors.map((error) => ({ message: error.message, param: error.param }));
    return body;
  }
}

export function errorBody(
  type: string,
  message: string,
  param: string | null = null,
  code: string | number | null = null,
  provider?: string,
): ErrorBody {
  const error: ErrorBody['error'] = { message, type, param, code };
  if (provider) error.provider = provider;
  return { error };
}

export const invalidRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new GatewayError(400, 'invalid_request_error', message, param, code);

export const unauthorized = (message: string) => new GatewayError(401, 'authentication_error', message);

/** A field the chosen provider has no way to honour: refused rather than silently dropped. */
export const unsupportedField = (field: string, provider: string, why = 'is not supported') =>
  new GatewayError(400, 'invalid_request_error', `'${field}' ${why} by provider '${provider}'`, field, 'unsupported_parameter', provider);

/** A provider call with no credential to send: `how` says what to send, e.g. "an API key: send 'Authorization: Bearer <key>'". */
export const missingProviderToken = (provider: string, how: string) =>
  new GatewayError(401, 'authentication_error', `Provider '${provider}' needs ${how} or use a virtual key`, null, null, provider);

/** The status a provider error maps to when the provider names a type we can translate. */
export function errorTypeForStatus(status: number): ErrorType {
  if (status === 400 || status === 404 || status === 413 || status === 422) return status === 404 ? 'not_found_error' : 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 502 || status === 504) return 'gateway_error';
  return 'api_error';
}
