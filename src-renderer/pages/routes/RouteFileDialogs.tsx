// Confirmations around routes: deleting one, and replacing all of them with an imported file (all or
// nothing, as on the command line), whose refusal names the file's line.
import { ApiError, describeError } from '../../api/api-error';
import type { Route } from '../../api/types';
import { ConfirmActions, Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/StatusViews';
import { useSubmission } from '../../components/use-submission';
import type { ParsedRoutesFile } from '../../routes/routes-file';
import { useRoutesStore } from '../../stores/routes-store';

export function ConfirmDeleteRouteDialog({ route, onClose, onDeleted }: { route: Route; onClose(): void; onDeleted(): void }) {
  const remove = useRoutesStore((state) => state.remove);
  const { submitting, error, submit } = useSubmission(describeError);
  const confirm = () =>
    submit(async () => {
      await remove(route.id);
      onDeleted();
    });
  return (
    <Dialog title={`Delete route “${route.name}”?`} onClose={onClose} size="small">
      <div className="stack">
        <p>
          Requests for <code>{route.match}</code> no longer go to its targets: the next route that matches serves them, or the key the client sends. The virtual keys stay as they are.
        </p>
        {error && <ErrorNotice message={error} />}
        <ConfirmActions onCancel={onClose} onConfirm={() => void confirm()} submitting={submitting} label="Delete route" busyLabel="Deleting…" tone="danger" />
      </div>
    </Dialog>
  );
}

/** A server refusal of an imported file, with the line of the value its `param` names. */
export function describeImportError(error: unknown, parsed: ParsedRoutesFile): string {
  const message = describeError(error);
  if (error instanceof ApiError && error.problems.length > 1) {
    // Every problem of the file at once, each at its line: fixed in one round.
    return error.problems
      .map((problem) => {
        const line = parsed.lineOf(problem.param);
        return line ? `Line ${line}: ${problem.message}` : problem.message;
      })
      .join('; ');
  }
  if (!(error instanceof ApiError) || !error.param) return message;
  const line = parsed.lineOf(error.param);
  return line ? `Line ${line} (${error.param}): ${message}` : `${error.param}: ${message}`;
}

export function ImportRoutesDialog({ fileName, parsed, currentCount, onClose, onImported }: { fileName: string; parsed: ParsedRoutesFile; currentCount: number; onClose(): void; onImported(count: number): void }) {
  const importFile = useRoutesStore((state) => state.importFile);
  const { submitting, error, submit } = useSubmission((caught) => describeImportError(caught, parsed));
  const incoming = parsed.file.routes;
  const confirm = () =>
    submit(async () => {
      await importFile(parsed.file);
      onImported(incoming.length);
    });
  const names = incoming.map((route) => (typeof route?.name === 'string' ? route.name : '(no name)'));
  return (
    <Dialog title={`Import ${fileName}?`} description="The file replaces every route, all or nothing: if any route in it is refused, nothing changes." onClose={onClose}>
      <div className="stack">
        <p>
          {`${currentCount} current ${currentCount === 1 ? 'route is' : 'routes are'} replaced by ${incoming.length} from the file`}
          {names.length > 0 && ': '}
          {names.map((name, index) => (
            <span key={index}>
              {index > 0 && ', '}
              <strong>{name}</strong>
            </span>
          ))}
          .
        </p>
        {error && <ErrorNotice title="Nothing was imported" message={error} />}
        <ConfirmActions onCancel={onClose} onConfirm={() => void confirm()} submitting={submitting} label="Replace routes" busyLabel="Importing…" tone="primary" />
      </div>
    </Dialog>
  );
}
