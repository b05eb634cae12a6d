// The shapes of the admin API (CONTRACT §5) as the UI reads them. Fields the server may omit are optional.

export interface ApiErrorBody {
  error: { message: string; type?: string; param?: string | null; code?: string | number | null; provider?: string };
}

export interface Health {
  ok: boolean;
  version: string;
}

export interface ProviderField {
  name: string;
  label: string;
  secret: boolean;
  required: boolean;
  placeholder?: string;
}

export interface ProviderInfo {
  slug: string;
  name: string;
  fields: ProviderField[];
  defaultBaseUrl: string;
}

export interface VirtualKey {
  id: string;
  name: string;
  provider: string;
  keyPrefix: string;
  customHost: string | null;
  createdAt: string;
  lastUsedAt?: string | null;
}

export interface CreatedVirtualKey {
  id: string;
  name: string;
  provider: string;
  key: string;
  keyPrefix: string;
  createdAt: string;
}

export interface NewVirtualKey {
  name: string;
  provider: string;
  secret?: string;
  customHost?: string;
  cloud?: Record<string, string>;
}

export interface VirtualKeyRotation {
  secret?: string;
  cloud?: Record<string, string>;
}

export interface GatewayKey {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  lastUsedAt?: string | null;
}

export interface CreatedGatewayKey {
  id: string;
  name: string;
  key: string;
  keyPrefix: string;
  createdAt: string;
}

export interface LogEntry {
  id: string;
  createdAt: string;
  traceId: string | null;
  metadata: Record<string, string> | null;
  provider: string | null;
  model: string | null;
  path: string;
  status: number;
  latencyMs: number | null;
  ttfbMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  stream: boolean;
  error: string | null;
}

export interface LogAttempt {
  attempt?: number;
  status?: number | null;
  latencyMs?: number | null;
  error?: string | null;
  startedAt?: string;
  [field: string]: unknown;
}

export interface LogDetail extends LogEntry {
  requestHeaders: Record<string, string | string[]>;
  requestBody: string | null;
  responseBody: string | null;
  attempts?: LogAttempt[];
}

export interface LogPage {
  items: LogEntry[];
  next: string | null;
}

export interface LogQuery {
  limit?: number;
  before?: string;
  provider?: string;
  status?: string;
  q?: string;
  model?: string;
}

export interface KeyProtection {
  mode: string;
  protected: boolean;
  warning: string | null;
}

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  retentionDays: number;
  storeBodies: boolean;
  keyProtection: KeyProtection;
}

export type SettingsPatch = Partial<Pick<Settings, 'host' | 'port' | 'retentionDays' | 'storeBodies'>>;

export interface ItemList<T> {
  items: T[];
}
