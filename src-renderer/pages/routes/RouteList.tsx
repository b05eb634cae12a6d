// The routes in match order. Order changes by dragging a row or with its up/down buttons (which keep
// focus on the moved row, so a keyboard user can press again); each move is announced.
import { useState, type DragEvent } from 'react';
import type { Route } from '../../api/types';
import { formatDuration, formatFullTime, formatRelativeTime } from '../../components/format';
import { Icon, type IconName } from '../../components/Icon';
import { describeConditions, STRATEGY_DESCRIPTIONS, STRATEGY_LABELS } from '../../routes/route-form';

export type RouteAction = 'test' | 'edit' | 'delete';

const DRAG_TYPE = 'application/x-gatehouse-route';

function RowAction({ icon, verb, subject, danger = false, onClick }: { icon: IconName; verb: string; subject: string; danger?: boolean; onClick(): void }) {
  return (
    <button type="button" className={`button button-ghost button-small${danger ? ' button-danger-text' : ''}`} onClick={onClick}>
      <Icon name={icon} />
      {verb}
      <span className="visually-hidden"> {subject}</span>
    </button>
  );
}

function TargetList({ route }: { route: Route }) {
  return (
    <ol className="route-targets" aria-label={`Targets of ${route.name}`}>
      {route.targets.map((target, index) => {
        const conditions = describeConditions(target.when);
        return (
          <li key={index} className="route-target">
            <span className="route-target-order" aria-hidden="true">
              {index + 1}
            </span>
            <span className="route-target-name mono truncate">
              {target.key} → {target.model ?? <span className="muted">requested name</span>}
            </span>
            {route.strategy === 'balance' && <span className="tag">{`weight ${target.weight ?? 1}`}</span>}
            {target.timeout_ms !== undefined && <span className="tag">{`timeout ${formatDuration(target.timeout_ms)}`}</span>}
            {conditions && <span className="tag tag-condition">{`when ${conditions}`}</span>}
          </li>
        );
      })}
    </ol>
  );
}

function focusMoveButton(id: string, direction: 'up' | 'down') {
  // The row's node may have been moved in the DOM, which drops focus: put it back on the same button.
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-route-id="${CSS.escape(id)}"] [data-move="${direction}"]`)?.focus());
}

export function RouteList({ routes, onMove, onDrop, onAction }: { routes: Route[]; onMove(id: string, delta: number): void; onDrop(id: string, index: number): void; onAction(route: Route, action: RouteAction): void }) {
  const [draggedId, setDraggedId] = useState<string | null>(null);
  const [dropIndex, setDropIndex] = useState<number | null>(null);

  const onDragOver = (event: DragEvent<HTMLLIElement>, index: number) => {
    if (!draggedId) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    if (dropIndex !== index) setDropIndex(index);
  };
  const endDrag = () => {
    setDraggedId(null);
    setDropIndex(null);
  };

  return (
    <ol className="route-list" aria-label="Routes">
      {routes.map((route, index) => (
        <li
          key={route.id}
          data-route-id={route.id}
          className={`route-row${draggedId === route.id ? ' route-row-dragging' : ''}${dropIndex === index && draggedId !== route.id ? ' route-row-drop' : ''}`}
          draggable
          onDragStart={(event) => {
            event.dataTransfer.effectAllowed = 'move';
            event.dataTransfer.setData(DRAG_TYPE, route.id);
            event.dataTransfer.setData('text/plain', route.name);
            setDraggedId(route.id);
          }}
          onDragOver={(event) => onDragOver(event, index)}
          onDrop={(event) => {
            event.preventDefault();
            const id = event.dataTransfer.getData(DRAG_TYPE) || draggedId;
            if (id) onDrop(id, index);
            endDrag();
          }}
          onDragEnd={endDrag}
        >
          <div className="route-handle" title="Drag to reorder" aria-hidden="true">
            <svg viewBox="0 0 24 24" width="16" height="16" fill="currentColor">
              <circle cx="9" cy="6" r="1.6" />
              <circle cx="15" cy="6" r="1.6" />
              <circle cx="9" cy="12" r="1.6" />
              <circle cx="15" cy="12" r="1.6" />
              <circle cx="9" cy="18" r="1.6" />
              <circle cx="15" cy="18" r="1.6" />
            </svg>
          </div>
          <div className="route-position">
            <span className="visually-hidden">Position </span>
            {index + 1}
          </div>
          <div className="route-main">
            <div className="route-heading">
              <h3 className="route-name">{route.name}</h3>
              <code className="route-match" title="Requested model name this route matches">
                {route.match}
              </code>
              <span className="badge badge-accent" title={STRATEGY_DESCRIPTIONS[route.strategy]}>
                {STRATEGY_LABELS[route.strategy]}
              </span>
            </div>
            {isCatchAllMatch(route.match) && (
              <p className="route-note small muted">
                Default route: takes every model no route above it takes, for gateway keys. A virtual key's own calls keep going to its own provider.
              </p>
            )}
            <TargetList route={route} />
            <p className="route-last small muted">
              {route.lastServed ? (
                <>
                  Last served by <span className="mono route-last-target">{`${route.lastServed.key} → ${route.lastServed.model}`}</span>{' '}
                  <span title={formatFullTime(route.lastServed.at)}>{formatRelativeTime(route.lastServed.at)}</span>
                </>
              ) : (
                'Not used yet'
              )}
            </p>
          </div>
          <div className="route-actions">
            <div className="route-order-buttons">
              <button
                type="button"
                className="button button-ghost button-icon"
                data-move="up"
                aria-label={`Move ${route.name} up`}
                aria-disabled={index === 0}
                onClick={() => {
                  if (index === 0) return;
                  onMove(route.id, -1);
                  focusMoveButton(route.id, 'up');
                }}
              >
                <Icon name="chevron-up" />
              </button>
              <button
                type="button"
                className="button button-ghost button-icon"
                data-move="down"
                aria-label={`Move ${route.name} down`}
                aria-disabled={index === routes.length - 1}
                onClick={() => {
                  if (index === routes.length - 1) return;
                  onMove(route.id, 1);
                  focusMoveButton(route.id, 'down');
                }}
              >
                <Icon name="chevron-down" />
              </button>
            </div>
            <RowAction icon="play" verb="Test" subject={route.name} onClick={() => onAction(route, 'test')} />
            <RowAction icon="edit" verb="Edit" subject={route.name} onClick={() => onAction(route, 'edit')} />
            <RowAction icon="trash" verb="Delete" subject={route.name} danger onClick={() => onAction(route, 'delete')} />
          </div>
        </li>
      ))}
    </ol>
  );
}

/** A match that takes every model name (`*`): the default route. */
function isCatchAllMatch(match: string): boolean {
  return /^\*+$/.test(match.trim());
}
