// Turns Gatehouse settings (the camelCase parameters of spec §5) into the gateway's HTTP headers.
// One place for the mapping, used by the client and by anyone who brings their own OpenAI client.

/** Settings the gateway reads from headers; every one is optional. */
export interface GatehouseSettings {
  /** The gateway API key or a virtual key (`gh-vk-...`), sent as `x-gateway-api-key`. */
  gatewayApiKey?: string;
  /** Another name for `gatewayApiKey` (spec §5.1). */
  apiKey?: string;
  /** Provider slug such as `openai` or `anthropic`, sent as `x-gateway-provider`. */
  provider?: string;
  /** Base URL that replaces the provider's own (a local model, a proxy), sent as `x-gateway-custom-host`. */
  customHost?: string;
  /** `Bearer <provider token>`; the gateway converts it into the provider's own header when needed. */
  Authorization?: string;
  /** Names of headers the gateway passes to the provider unchanged; their values are never logged. */
  forwardHeaders?: readonly string[];
  /** Recorded with the request in the gateway's log and echoed back in `x-gateway-trace-id`. */
  traceId?: string;
  /** Recorded with the request in the gateway's log; values must be strings. */
  metadata?: Readonly<Record<string, string>>;
  /** How often the gateway retries a 429, a 5xx or a connection error (0 to 5). */
  retryCount?: number;
  /** Milliseconds after which the gateway gives up on the provider and answers 504. */
  requestTimeout?: number;
  cloudAResourceName?: string;
  cloudADeploymentId?: string;
  cloudAApiVersion?: string;
  cloudAModelName?: string;
  cloudBProjectId?: string;
  cloudBRegion?: string;
  cloudCAccessKeyId?: string;
  cloudCSecretAccessKey?: string;
  cloudCRegion?: string;
  cloudCSessionToken?: string;
  /**
   * Any other header, named in camelCase: `xMyCustomHeader: 'v'` sends `x-my-custom-header: v`.
   * TypeScript admits names starting with `x` here; other headers go in the SDK's `defaultHeaders`.
   */
  [customHeader: `x${string}`]: string | number | boolean | undefined;
}

/** Settings sent under a fixed header name; the rest are the gateway key, lists, objects or custom headers. */
const HEADER_OF_SETTING = {
  provider: 'x-gateway-provider',
  customHost: 'x-gateway-custom-host',
  Authorization: 'authorization',
  traceId: 'x-gateway-trace-id',
  retryCount: 'x-gateway-retry-count',
  requestTimeout: 'x-gateway-request-timeout',
  cloudAResourceName: 'x-gateway-cloud-a-resource-name',
  cloudADeploymentId: 'x-gateway-cloud-a-deployment-id',
  cloudAApiVersion: 'x-gateway-cloud-a-api-version',
  cloudAModelName: 'x-gateway-cloud-a-model-name',
  cloudBProjectId: 'x-gateway-cloud-b-project-id',
  cloudBRegion: 'x-gateway-cloud-b-region',
  cloudCAccessKeyId: 'x-gateway-cloud-c-access-key-id',
  cloudCSecretAccessKey: 'x-gateway-cloud-c-secret-access-key',
  cloudCRegion: 'x-gateway-cloud-c-region',
  cloudCSessionToken: 'x-gateway-cloud-c-session-token',
} as const satisfies Partial<Record<keyof GatehouseSettings, string>>;

const SETTINGS_WITH_OWN_ENCODING = new Set(['gatewayApiKey', 'apiKey', 'forwardHeaders', 'metadata']);

/**
 * `xMyCustomHeader` → `x-my-custom-header`; `xAPIKey` → `x-api-key` (an acronym stays one word);
 * snake_case and names that already contain dashes work too.
 */
export function headerNameOf(optionName: string): string {
  return optionName
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}

function headerValueOf(optionName: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`Gatehouse option '${optionName}' must be a string, a number or a boolean to be sent as a header`);
}

function isKnownSetting(name: string): name is keyof typeof HEADER_OF_SETTING {
  return Object.hasOwn(HEADER_OF_SETTING, name);
}

/**
 * The headers that carry these settings, with lower-case names. Usable on its own as
 * `defaultHeaders` of a plain OpenAI client, or per call: `create(body, { headers: gatehouseHeaders({ traceId }) })`.
 */
export function gatehouseHeaders(settings: GatehouseSettings): Record<string, string> {
  const headers: Record<string, string> = {};
  const gatewayKey = settings.gatewayApiKey ?? settings.apiKey;
  if (gatewayKey) headers['x-gateway-api-key'] = gatewayKey;

  if (settings.forwardHeaders !== undefined) {
    // A plain string is accepted for callers without types; the gateway takes a comma-separated list.
    const names: readonly string[] | string = settings.forwardHeaders;
    headers['x-gateway-forward-headers'] = typeof names === 'string' ? names : names.join(',');
  }
  if (settings.metadata !== undefined) headers['x-gateway-metadata'] = JSON.stringify(settings.metadata);

  for (const [name, value] of Object.entries(settings)) {
    if (SETTINGS_WITH_OWN_ENCODING.has(name)) continue;
    const text = headerValueOf(name, value);
    if (text === undefined) continue;
    headers[isKnownSetting(name) ? HEADER_OF_SETTING[name] : headerNameOf(name)] = text;
  }
  return headers;
}
