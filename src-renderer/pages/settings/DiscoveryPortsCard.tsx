// Settings → Local model discovery: the ports probed besides the usual ones. Saved on its own, so it
// never touches (or discards) unsaved changes in the rest of the Settings form.
import { useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../../api/api-error';
import type { Settings } from '../../api/types';
import { Field } from '../../components/Field';
import { useLocalServersStore } from '../../stores/local-servers-store';
import { requireAdminClient } from '../../stores/session-store';
import { useToastStore } from '../../stores/toast-store';

const MAX_PORTS = 32;

/** `8081, 5000` → ports, or the reason it is not a list of ports. */
export function parsePortsText(text: string): { ports: number[] } | { error: string } {
  const ports: number[] = [];
  for (const part of text.split(/[\s,]+/)) {
    if (part === '') continue;
    const port = /^\d+$/.test(part) ? Number(part) : Number.NaN;
    if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: `‘${part}’ is not a port (1–65535)` };
    if (!ports.includes(port)) ports.push(port);
  }
  if (ports.length > MAX_PORTS) return { error: `At most ${MAX_PORTS} ports` };
  return { ports };
}

export function DiscoveryPortsCard({ settings }: { settings: Settings }) {
  const [saved, setSaved] = useState<number[]>(settings.discoveryPorts ?? []);
  const [text, setText] = useState(saved.join(', '));
  const [saving, setSaving] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const showToast = useToastStore((state) => state.show);
  const parsed = parsePortsText(text);
  const localError = 'error' in parsed ? parsed.error : null;
  const dirty = 'ports' in parsed ? parsed.ports.join(',') !== saved.join(',') : true;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!('ports' in parsed)) return;
    setSaving(true);
    setServerError(null);
    try {
      const updated = await requireAdminClient().updateSettings({ discoveryPorts: parsed.ports });
      setSaved(updated.discoveryPorts);
      setText(updated.discoveryPorts.join(', '));
      showToast('Discovery ports saved');
      // The Local models page shows the new ports' servers without waiting for the next sweep.
      void useLocalServersStore.getState().refresh();
    } catch (error) {
      setServerError(error instanceof ApiError && error.param === 'discoveryPorts' ? error.message : describeError(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="card" aria-labelledby="discovery-heading">
      <h2 id="discovery-heading" className="card-title">
        Local model discovery
      </h2>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field
          label="Extra ports"
          error={localError ?? serverError}
          hint="Loopback ports to look for model servers on, besides Ollama 11434, LM Studio 1234, llama.cpp and LocalAI 8080, vLLM 8000 and Jan 1337. Comma-separated."
        >
          <input className="input input-mono" inputMode="numeric" spellCheck={false} placeholder="e.g. 5001, 8081" value={text} onChange={(event) => setText(event.target.value)} />
        </Field>
        <div className="form-footer">
          <button type="submit" className="button button-secondary" disabled={!dirty || saving || localError !== null}>
            {saving ? 'Saving…' : 'Save ports'}
          </button>
        </div>
      </form>
    </section>
  );
}
