// Routes: where each requested model name goes. A list in match order (first match wins) with the
// target that served last; create, edit, reorder, test, delete; import and export the routes file.
import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { describeError } from '../api/api-error';
import type { Route } from '../api/types';
import { Icon } from '../components/Icon';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { parseRoutesFile, type ParsedRoutesFile } from '../routes/routes-file';
import { useKeysStore } from '../stores/keys-store';
import { useRoutesStore } from '../stores/routes-store';
import { useToastStore } from '../stores/toast-store';
import { RouteDialog } from './routes/RouteDialog';
import { ConfirmDeleteRouteDialog, ImportRoutesDialog } from './routes/RouteFileDialogs';
import { RouteList, type RouteAction } from './routes/RouteList';
import { RouteTestDialog } from './routes/RouteTestDialog';

type OpenDialog =
  | { type: 'new' }
  | { type: RouteAction; route: Route }
  | { type: 'import'; fileName: string; parsed: ParsedRoutesFile }
  | null;

const EXPORT_FILE_NAME = 'gatehouse-routes.json';

function downloadJson(fileName: string, value: unknown) {
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(value, null, 2)}\n`], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file over; the URL can go once the browser picked it up.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function RoutesPage() {
  const routes = useRoutesStore((state) => state.routes);
  const status = useRoutesStore((state) => state.status);
  const loadError = useRoutesStore((state) => state.loadError);
  const moveError = useRoutesStore((state) => state.moveError);
  const announcement = useRoutesStore((state) => state.announcement);
  const { load, move, moveTo, exportFile } = useRoutesStore.getState();
  const loadKeys = useKeysStore((state) => state.load);
  const showToast = useToastStore((state) => state.show);
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void load();
    // Targets are picked from the virtual keys by name.
    void loadKeys();
  }, [load, loadKeys]);

  const close = () => setDialog(null);

  const onExport = async () => {
    try {
      downloadJson(EXPORT_FILE_NAME, await exportFile());
      showToast(`Exported ${routes.length} ${routes.length === 1 ? 'route' : 'routes'}`);
    } catch (error) {
      showToast(`Export failed: ${describeError(error)}`, 'error');
    }
  };

  const onFileChosen = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // The same file can be picked again after fixing it.
    event.target.value = '';
    if (!file) return;
    setFileError(null);
    try {
      setDialog({ type: 'import', fileName: file.name, parsed: parseRoutesFile(await file.text()) });
    } catch (error) {
      setFileError(`${file.name}: ${describeError(error)}`);
    }
  };

  let body;
  if (status === 'loading' || status === 'idle') body = <LoadingState label="Loading routes" />;
  else if (status === 'error') body = <ErrorNotice title="Could not load routes" message={loadError ?? ''} onRetry={() => void load()} />;
  else if (!routes.length)
    body = (
      <section className="card card-flush">
        <EmptyState
          icon="route"
          title="No routes yet"
          action={
            <button type="button" className="button button-primary" onClick={() => setDialog({ type: 'new' })}>
              <Icon name="plus" />
              Add your first route
            </button>
          }
        >
          Send <code>claude-haiku-*</code> to a local model, fall back from one provider to another on 429, or spread <code>fast</code> over two: decide it once here, not in every tool.
        </EmptyState>
      </section>
    );
  else
    body = (
      <section className="card card-flush">
        <div className="card-header card-header-padded">
          <div>
            <h2 className="card-title">
              Routes <span className="count">{routes.length}</span>
            </h2>
            <p className="muted small">Checked from the top; the first whose match fits the requested model serves it. Drag a row or use its arrows to reorder.</p>
          </div>
        </div>
        <RouteList routes={routes} onMove={(id, delta) => void move(id, delta)} onDrop={(id, index) => void moveTo(id, index)} onAction={(route, type) => setDialog({ type, route })} />
      </section>
    );

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Routes</h1>
          <p className="page-subtitle">Decide once where each model name goes: aliases, fallbacks, load balancing and rules for long or thinking requests.</p>
        </div>
        <div className="header-actions">
          <input ref={fileInput} type="file" accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml" hidden aria-label="Routes file to import" onChange={(event) => void onFileChosen(event)} />
          <button type="button" className="button button-secondary" onClick={() => fileInput.current?.click()}>
            <Icon name="upload" />
            Import…
          </button>
          <button type="button" className="button button-secondary" disabled={status !== 'ready'} onClick={() => void onExport()}>
            <Icon name="download" />
            Export
          </button>
          <button type="button" className="button button-primary" onClick={() => setDialog({ type: 'new' })}>
            <Icon name="plus" />
            New route
          </button>
        </div>
      </header>

      {fileError && <ErrorNotice title="Could not read the file" message={fileError} />}
      {moveError && <ErrorNotice message={moveError} />}
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {body}

      {dialog?.type === 'new' && (
        <RouteDialog
          route={null}
          onClose={close}
          onSaved={(route) => {
            close();
            showToast(`Created route ${route.name}`);
          }}
        />
      )}
      {dialog?.type === 'edit' && (
        <RouteDialog
          route={dialog.route}
          onClose={close}
          onSaved={(route) => {
            close();
            showToast(`Saved route ${route.name}`);
          }}
        />
      )}
      {dialog?.type === 'test' && <RouteTestDialog route={dialog.route} onClose={close} />}
      {dialog?.type === 'delete' && (
        <ConfirmDeleteRouteDialog
          route={dialog.route}
          onClose={close}
          onDeleted={() => {
            close();
            showToast(`Deleted route ${dialog.route.name}`);
          }}
        />
      )}
      {dialog?.type === 'import' && (
        <ImportRoutesDialog
          fileName={dialog.fileName}
          parsed={dialog.parsed}
          currentCount={routes.length}
          onClose={close}
          onImported={(count) => {
            close();
            showToast(`Imported ${count} ${count === 1 ? 'route' : 'routes'}`);
          }}
        />
      )}
    </div>
  );
}
