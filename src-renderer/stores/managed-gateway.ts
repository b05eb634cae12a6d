// Switching what the app manages (this computer's gateway or the team's): the session points its client at
// the other admin API, and what the pages loaded from the one they leave is dropped, so no page shows this
// computer's keys or log under the team's name, even for the moment the team's are on their way. The
// Playground keeps its conversation but not its key: the other gateway has its own keys, so it starts
// from that gateway's first one (a key of the gateway left would read as "revoked or gone").
import { useCompareStore } from './compare-store';
import { useKeyLimitsStore } from './key-limits-store';
import { useKeyModelsStore } from './key-models-store';
import { useKeysStore } from './keys-store';
import { useLocalServersStore } from './local-servers-store';
import { useLogsStore } from './logs-store';
import { useMcpServersStore } from './mcp-servers-store';
import { usePlaygroundStore } from './playground-store';
import { useRoutesStore } from './routes-store';
import { useSavedPromptsStore } from './saved-prompts-store';
import { useSessionStore, type ManagedGateway } from './session-store';
import { useSettingsStore } from './settings-store';
import { useUsageStore } from './usage-store';

const GATEWAY_DATA_STORES = [useKeysStore, useKeyLimitsStore, useKeyModelsStore, useCompareStore, useLogsStore, useUsageStore, useSettingsStore, useSavedPromptsStore, useRoutesStore, useMcpServersStore, useLocalServersStore];

export function switchManagedGateway(target: ManagedGateway): void {
  const session = useSessionStore.getState();
  if (session.managing === target) return;
  session.manage(target);
  if (useSessionStore.getState().managing !== target) return;
  for (const store of GATEWAY_DATA_STORES) (store as { setState(state: unknown, replace: true): void; getInitialState(): unknown }).setState(store.getInitialState(), true);
  usePlaygroundStore.getState().update({ keyId: '' });
}
