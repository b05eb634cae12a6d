// A provider's model list: passed through when it is OpenAI's list as asked, else read, mapped to the shape
// asked for, with the route names beside the provider's models.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../core/errors.js';
import type { ModelListing } from '../../providers/types.js';
import { readListedModels, type ListedModels } from '../../providers/model-list.js';
import type { UpstreamResponse } from '../../providers/upstream.js';
import { redactSecrets } from '../../core/redact.js';
import { routeModelEntry, shapedModelList, type ModelListRequest } from '../model-list-shapes.js';
import { MAX_ERROR_BODY_BYTES, readHeldJson, readUpTo, relayedHeaders, relayProviderError } from './provider-answer.js';
import { relayPassthrough } from './passthrough.js';
import type { RelayOptions, RelayOutcome } from './types.js';
import { NOT_A_MODEL_LIST } from '../model-list-failure.js';

/** `GET /v1/models`: OpenAI-format lists pass through; other providers' lists are mapped to OpenAI's shape. */
export async function relayModelList(
  res: ServerResponse,
  upstream: UpstreamResponse,
  listing: ModelListing,
  request: ModelListRequest,
  options: RelayOptions,
  /** Route names, listed beside the provider's models (owned by "gatehouse-route"). */
  routeNames?: readonly string[],
): Promise<RelayOutcome> {
  if (!listing.map && request.shape === 'openai' && request.model === undefined && !routeNames?.length) return relayPassthrough(res, upstream, options);
  if (upstream.status >= 400) return relayProviderError(res, upstream, options);
  const json = await readHeldJson(upstream, options, 'answered its model list');
  const mapped = listedModels(json, listing);
  const list: ListedModels = routeNames?.length
    ? { ...mapped, data: [...mapped.data, ...routeNames.map(routeModelEntry)] }
    : mapped;
  const text = JSON.stringify(shapedModelList(list, request));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...relayedHeaders(upstream) });
  res.end(text);
  return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: text };
}

/**
 * A provider's model list read rather than relayed (the admin Playground offers it in its Model field),
 * in OpenAI's shape; a provider's refusal is thrown in the contract's words, secrets redacted.
 */
export async function readModelList(upstream: UpstreamResponse, listing: ModelListing, options: RelayOptions): Promise<ListedModels> {
  if (upstream.status >= 400) {
    const { text } = await readUpTo(upstream.body, MAX_ERROR_BODY_BYTES);
    const mapped = options.adapter.mapError(upstream.status, text, upstream.headers);
    throw new GatewayError(upstream.status, mapped.type, redactSecrets(mapped.message, options.secrets), mapped.param ?? null, mapped.code, options.adapter.slug);
  }
  const json = await readHeldJson(upstream, options, 'answered its model list');
  // Read (not relayed), a list must be one: a web server's `{"status":"ok"}` is not "no models".
  if (!listing.map && !Array.isArray((json as { data?: unknown } | null)?.data)) {
    throw new GatewayError(502, 'gateway_error', `Provider '${options.adapter.slug}' answered its model list with JSON that has no 'data' list`, null, NOT_A_MODEL_LIST, options.adapter.slug);
  }
  return listedModels(json, listing);
}

/** A provider's list in OpenAI's shape: mapped by its listing, or read as it came. */
function listedModels(json: unknown, listing: ModelListing): ListedModels {
  return listing.map ? listing.map(json) : readListedModels(json);
}
