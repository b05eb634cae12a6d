// Which gateway the pages manage, at the top of every page once a team gateway is set: this computer's,
// or the team's (through this computer's relay). Managing the team is tinted so it is never mistaken
// for the local gateway; this computer's gateway keeps serving either way.
import { switchManagedGateway } from '../stores/managed-gateway';
import { useRouteStore } from '../stores/route-store';
import { teamHost, useSessionStore, type ManagedGateway } from '../stores/session-store';
import { Icon } from './Icon';
import { SegmentedControl } from './SegmentedControl';

export function ManagedGatewayBar() {
  const team = useSessionStore((state) => state.teamGateway);
  const managing = useSessionStore((state) => state.managing);
  const page = useRouteStore((state) => state.page);
  if (!team?.address) return null;
  const host = teamHost(team.address);
  return (
    <div className={`managed-bar managed-bar-${managing}`} role="region" aria-label="Managed gateway">
      <span className="managed-bar-label">Managing</span>
      <SegmentedControl<ManagedGateway>
        label="Managed gateway"
        value={managing}
        onChange={switchManagedGateway}
        options={[
          { value: 'local', label: 'This computer' },
          { value: 'team', label: `Team: ${host}` },
        ]}
      />
      {managing === 'team' && (
        <span className="managed-bar-note">
          {team.connected === false ? <Icon name="alert" size={14} /> : null}
          {team.connected === false
            ? (team.error?.message ?? 'The team gateway does not answer')
            : page === 'playground'
              ? 'Stored keys run on the team gateway; a pasted key is sent to this computer’s.'
              : 'Changes here go to the team gateway.'}
        </span>
      )}
    </div>
  );
}
