// "Add to a route" for one model of a local server: a new route named as the person types (the model
// id at first) whose target is the server's key → this model, or this target appended to a route they
// pick. The server's refusals land beside the field they name; a saved route is a click from the Routes page.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../../api/api-error';
import type { Route } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { SegmentedControl } from '../../components/SegmentedControl';
import { ErrorNotice, LoadingState } from '../../components/StatusViews';
import type { RevealedKey } from '../../stores/keys-store';
import { useRoutesStore } from '../../stores/routes-store';
import { fieldOfRefusal, freeRouteName, newRouteForModel, routeNameTaken, routeWithTarget, type AddToRouteMode } from './add-to-route';

interface AddToRouteDialogProps {
  model: string;
  /** The server's name as the page shows it ("Ollama on 127.0.0.1:11434"). */
  serverName: string;
  keyName: string;
  /** The key made for this flow, shown this once; null when an existing key is used. */
  made: RevealedKey | null;
  onClose(): void;
  onOpenRoutes(): void;
}

function MadeKeyNotice({ made }: { made: RevealedKey }) {
  return (
    <div className="stack-small">
      <div className="notice notice-warning">
        <Icon name="keys" size={18} />
        <div className="notice-body">
          <strong>Made the virtual key “{made.name}” for this server.</strong>
          <span>Routes use it by name, so a gateway key is all a client needs. To call the server with this key directly, copy it now: this is the only time it is shown (it is listed on the Keys page).</span>
        </div>
      </div>
      <div className="secret-display">
        <code aria-label="New key" className="secret-value">
          {made.key}
        </code>
        <CopyButton text={made.key} what="key" variant="secondary" />
      </div>
    </div>
  );
}

export function AddToRouteDialog({ model, serverName, keyName, made, onClose, onOpenRoutes }: AddToRouteDialogProps) {
  const routes = useRoutesStore((state) => state.routes);
  const routesStatus = useRoutesStore((state) => state.status);
  const routesError = useRoutesStore((state) => state.loadError);
  const loadRoutes = useRoutesStore((state) => state.load);
  const save = useRoutesStore((state) => state.save);
  const [mode, setMode] = useState<AddToRouteMode>('new');
  const [name, setName] = useState(model);
  const [nameEdited, setNameEdited] = useState(false);
  const [routeId, setRouteId] = useState('');
  const [errors, setErrors] = useState<{ name?: string; route?: string }>({});
  const [generalError, setGeneralError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [saved, setSaved] = useState<{ route: Route; appended: boolean } | null>(null);

  useEffect(() => {
    // Always a fresh list: routes change on the Routes page and from the CLI.
    void loadRoutes();
  }, [loadRoutes]);

  // The picker starts on the first route once the list is in.
  useEffect(() => {
    if (!routeId && routes.length) setRouteId(routes[0].id);
  }, [routeId, routes]);

  // The proposed name is one no route has yet, once the routes are known (unless the person typed one).
  useEffect(() => {
    if (!nameEdited && routesStatus === 'ready') setName(freeRouteName(model, routes));
  }, [nameEdited, routesStatus, routes, model]);

  const target = `${keyName} → ${model}`;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setGeneralError(null);
    let id: string | null = null;
    let input;
    if (mode === 'new') {
      if (!name.trim()) {
        setErrors({ name: 'Give the route a name: clients send it as the model.' });
        return;
      }
      const taken = routeNameTaken(name, routes);
      if (taken) {
        setErrors({ name: taken });
        return;
      }
      input = newRouteForModel(name, keyName, model);
    } else {
      const route = routes.find((item) => item.id === routeId);
      if (!route) {
        setErrors({ route: 'Choose a route.' });
        return;
      }
      const change = routeWithTarget(route, keyName, model);
      if ('error' in change) {
        setErrors({ route: change.error });
        return;
      }
      id = route.id;
      input = change.input;
    }
    setErrors({});
    setSubmitting(true);
    try {
      setSaved({ route: await save(id, input), appended: id !== null });
    } catch (caught) {
      const field = caught instanceof ApiError ? fieldOfRefusal(mode, caught.param) : null;
      if (field) setErrors({ [field]: describeError(caught) });
      else setGeneralError(describeError(caught));
    } finally {
      setSubmitting(false);
    }
  };

  if (saved) {
    const { route, appended } = saved;
    return (
      <Dialog title={appended ? `Added to “${route.name}”` : `Route “${route.name}” created`} onClose={onClose}>
        <div className="stack">
          {made && <MadeKeyNotice made={made} />}
          <p>
            {appended ? (
              <>
                Requests for <code className="mono">{route.match}</code> now also go to <code className="mono">{target}</code>, target {route.targets.length} of {route.targets.length}
                {route.strategy === 'fallback' ? ': tried when the ones before it fail.' : ', with its share of the requests.'}
              </>
            ) : (
              <>
                Send <code className="mono">{route.name}</code> as the model with a gateway key, and the request goes to <code className="mono">{target}</code>.
              </>
            )}
          </p>
          <div className="dialog-actions">
            <button type="button" className="button button-secondary" onClick={onOpenRoutes}>
              <Icon name="route" />
              Open Routes
            </button>
            <button type="button" className="button button-primary" autoFocus onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      </Dialog>
    );
  }

  const noRoutes = routesStatus === 'ready' && routes.length === 0;
  return (
    <Dialog
      title={`Add ${model} to a route`}
      description={
        <>
          What the route catches goes to <code className="mono">{target}</code>: this model on {serverName}, through the server's virtual key.
        </>
      }
      onClose={onClose}
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        {made && <MadeKeyNotice made={made} />}
        <div className="field">
          <div className="field-label-row">
            <span className="field-label">Route</span>
          </div>
          <div>
            <SegmentedControl<AddToRouteMode>
              label="Route"
              value={mode}
              onChange={(next) => {
                setMode(next);
                setErrors({});
                setGeneralError(null);
              }}
              options={[
                { value: 'new', label: 'New route' },
                { value: 'existing', label: 'Existing route' },
              ]}
            />
          </div>
        </div>

        {mode === 'new' ? (
          <Field label="Route name" error={errors.name} hint="Clients send this as the model. An exact name, or a glob with * to catch several.">
            <input className="input input-mono" spellCheck={false} value={name} autoFocus onChange={(event) => { setName(event.target.value); setNameEdited(true); }} />
          </Field>
        ) : routesStatus === 'error' ? (
          <ErrorNotice title="Could not load routes" message={routesError ?? ''} onRetry={() => void loadRoutes()} />
        ) : routesStatus !== 'ready' ? (
          <LoadingState label="Loading routes" />
        ) : noRoutes ? (
          <p className="muted small">No routes yet: make a new one.</p>
        ) : (
          <Field label="Add to" error={errors.route} hint="Added as the route's last target: under Fallback, tried when the ones before it fail.">
            <select className="input" value={routeId} onChange={(event) => setRouteId(event.target.value)}>
              {routes.map((route) => (
                <option key={route.id} value={route.id}>
                  {route.name === route.match ? route.name : `${route.name} (${route.match})`} · {route.targets.length} target{route.targets.length === 1 ? '' : 's'}
                </option>
              ))}
            </select>
          </Field>
        )}

        {generalError && <ErrorNotice title="Not saved" message={generalError} />}
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={submitting || (mode === 'existing' && (noRoutes || routesStatus !== 'ready'))}>
            {submitting ? 'Saving…' : mode === 'new' ? 'Create route' : 'Add target'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
