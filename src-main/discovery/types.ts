// What discovery reports about the model servers running on this machine. Plain data, shared by the
// probe, the app's discovery service, the admin API and `gatehouse discover`.

export const LOCAL_SERVER_KINDS = ['ollama', 'lmstudio', 'llamacpp', 'vllm', 'jan', 'localai', 'openai-compatible'] as const;
export type LocalServerKind = (typeof LOCAL_SERVER_KINDS)[number];

export interface LocalModel {
  id: string;
  /** Bytes on disk, when the server says. */
  size?: number;
  /** Tokens the model (or the server's setting for it) takes, when the server says. */
  contextLength?: number;
  /** LM Studio lists downloaded models too; this says whether one is in memory now. */
  loaded?: boolean;
}

/** How a virtual key reaches the server: a provider slug and the custom host that stands in for its base URL. */
export interface LocalConnection {
  provider: 'ollama' | 'openai-compatible';
  customHost: string;
}

export interface DiscoveredServer {
  kind: LocalServerKind;
  /** The OpenAI-compatible base URL (ends in /v1): what a client or a virtual key points at. */
  url: string;
  host: string;
  port: number;
  version: string | null;
  models: LocalModel[];
  connection: LocalConnection;
  /**
   * The server answered 404 to `POST /v1/responses`: it speaks Chat Completions only, and a key made for it
   * gets `chatOnly` (Responses calls translated to Chat). Absent when unknown, and for Ollama (always translated).
   */
  chatOnly?: boolean;
}

/** A server as the app remembers it: one that stops answering stays listed, offline. */
export interface LocalServer extends DiscoveredServer {
  online: boolean;
  /** ISO 8601: when it last answered a probe. */
  lastSeen: string;
}

/** GET /admin/api/local-servers. */
export interface LocalServerList {
  items: LocalServer[];
  /** ISO 8601: when the last sweep ended; null before the first one has. */
  checkedAt: string | null;
  /** Whether a sweep is under way now. */
  refreshing: boolean;
  /** The loopback ports each sweep probes. */
  ports: number[];
}
