// The Gatehouse client: the official OpenAI SDK pointed at the gateway, with the gateway's settings
// (spec §5) as constructor options and `withOptions` for settings that change per call.
import OpenAI, { OpenAIError, type ClientOptions } from 'openai';
import { gatehouseHeaders, type GatehouseSettings } from './gateway-headers.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787/v1';

/** SDK options that keep their meaning with Gatehouse; every other option is a gateway setting or a header. */
const SDK_OPTION_NAMES = [
  'baseURL',
  'timeout',
  'maxRetries',
  'fetch',
  'fetchOptions',
  'defaultHeaders',
  'defaultQuery',
  'dangerouslyAllowBrowser',
  'logLevel',
  'logger',
  'organization',
  'project',
] as const;
type SdkOptionName = (typeof SDK_OPTION_NAMES)[number];

type SdkOptions = Omit<Pick<ClientOptions, SdkOptionName>, 'defaultHeaders'> & {
  /** Extra headers for every request; `null` removes a header the SDK would send. */
  defaultHeaders?: Record<string, string | null | undefined>;
};

export type GatehouseOptions = SdkOptions & GatehouseSettings;

function isSdkOptionName(name: string): name is SdkOptionName {
  return (SDK_OPTION_NAMES as readonly string[]).includes(name);
}

function readEnv(name: string): string | undefined {
  // Guarded so the module also loads where there is no `process` (a bundler, a worker).
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name]?.trim();
  return value ? value : undefined;
}

function splitOptions(options: GatehouseOptions): { sdkOptions: SdkOptions; settings: GatehouseSettings } {
  const sdkOptions: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    (isSdkOptionName(name) ? sdkOptions : settings)[name] = value;
  }
  return { sdkOptions: sdkOptions as SdkOptions, settings: settings as GatehouseSettings };
}

function toClientOptions(options: GatehouseOptions): ClientOptions {
  const { sdkOptions, settings } = splitOptions(options);
  const gatewayApiKey = settings.gatewayApiKey ?? settings.apiKey ?? readEnv('GATEWAY_API_KEY');
  if (!gatewayApiKey) {
    throw new OpenAIError('Missing the gateway API key: pass `gatewayApiKey` (or `apiKey`), or set the GATEWAY_API_KEY environment variable.');
  }
  const headers: Record<string, string | null> = {
    // The SDK would otherwise send the gateway key as `Authorization: Bearer ...`, which the gateway
    // reads as the provider token and could pass on to the provider. Only an explicit Authorization goes out.
    authorization: null,
    ...gatehouseHeaders({ ...settings, gatewayApiKey }),
  };
  for (const [name, value] of Object.entries(sdkOptions.defaultHeaders ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  return {
    ...sdkOptions,
    baseURL: sdkOptions.baseURL ?? DEFAULT_BASE_URL,
    apiKey: gatewayApiKey,
    defaultHeaders: headers,
  };
}

/** Options of the plain SDK that have no meaning for a client that always talks to the gateway. */
const FOREIGN_SDK_OPTIONS = ['adminAPIKey', 'workloadIdentity', 'webhookSecret'] as const;

function isGatehouseOptions(options: GatehouseOptions | Partial<ClientOptions>): options is GatehouseOptions {
  const { provider, apiKey, defaultHeaders } = options;
  return (
    (provider === undefined || typeof provider === 'string') &&
    (apiKey === undefined || typeof apiKey === 'string') &&
    (defaultHeaders === undefined || (typeof defaultHeaders === 'object' && defaultHeaders !== null && Object.getPrototypeOf(defaultHeaders) === Object.prototype)) &&
    FOREIGN_SDK_OPTIONS.every((name) => !(name in options))
  );
}

export class Gatehouse extends OpenAI {
  /** What the caller gave, so `withOptions` can derive a client from it. */
  readonly #options: GatehouseOptions;

  constructor(options: GatehouseOptions = {}) {
    super(toClientOptions(options));
    this.#options = { ...options };
  }

  /**
   * A client with these settings on top of this one's, for one call or more:
   * `client.withOptions({ traceId: 'run-42', metadata: { user: 'ada' } }).completions.create(...)`.
   * Settings replace this client's, except `metadata`, which is merged key by key.
   */
  override withOptions(overrides: GatehouseOptions | Partial<ClientOptions>): this {
    // The union keeps the override compatible with OpenAI#withOptions; only Gatehouse options make sense here.
    if (!isGatehouseOptions(overrides)) {
      throw new OpenAIError(
        'Gatehouse.withOptions takes Gatehouse options: `provider` is a slug string, `apiKey` a string, `defaultHeaders` a plain object; adminAPIKey, workloadIdentity and webhookSecret do not apply.',
      );
    }
    const merged: GatehouseOptions = { ...this.#options, ...overrides };
    if (overrides.metadata !== undefined) merged.metadata = { ...this.#options.metadata, ...overrides.metadata };
    const SameClass = this.constructor as new (options: GatehouseOptions) => this;
    return new SameClass(merged);
  }
}
