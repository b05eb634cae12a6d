// @gatehouse/client: the Gatehouse client, the header mapping it uses, and the SDK's error classes
// re-exported so callers can `catch` without importing `openai` themselves.
export { Gatehouse, Gatehouse as default, DEFAULT_BASE_URL, type GatehouseOptions } from './gatehouse.js';
export { gatehouseHeaders, headerNameOf, type GatehouseSettings } from './gateway-headers.js';
export {
  OpenAIError,
  APIError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
} from 'openai';
