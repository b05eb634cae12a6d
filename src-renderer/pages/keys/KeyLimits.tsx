// A key's limits on the Keys page: a meter per limit (how close the key is: requests and tokens in the
// last minute, spend today and this month) and the editor to set or remove them. A key over a limit
// gets 429 with Retry-After from the gateway; the meter says which limit and until when.
import { formatUsd as formatSpendUsd } from '../usage/usage-format';
import { useState, type FormEvent } from 'react';
import type { KeyLimits, KeyLimitsView } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { formatCount, formatFullTime } from '../../components/format';
import { toFormError, useSubmission } from '../../components/use-submission';
import { useKeyLimitsStore } from '../../stores/key-limits-store';
import { useToastStore } from '../../stores/toast-store';
import './key-limits.css';

type LimitField = keyof KeyLimits;

const FIELDS: { name: LimitField; label: string; hint: string; step: string }[] = [
  { name: 'rpm', label: 'Requests per minute', hint: 'Any call through this key, in a sliding minute.', step: '1' },
  { name: 'tpm', label: 'Tokens per minute', hint: 'Input + output tokens of finished calls, in a sliding minute.', step: '1' },
  { name: 'dailyUsd', label: 'Daily budget (USD)', hint: 'Resets at midnight on this computer’s clock.', step: 'any' },
  { name: 'monthlyUsd', label: 'Monthly budget (USD)', hint: 'Resets on the 1st at midnight.', step: 'any' },
];

const NO_LIMITS: KeyLimits = { rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null };

/** The same dollars as the Keys page's spend column and the Usage page, so a meter and the figure beside it agree. */
export const formatUsd = formatSpendUsd;

const hasLimits = (limits: KeyLimits) => Object.values(limits).some((value) => value !== null);

interface MeterReading {
  id: LimitField;
  label: string;
  used: number;
  limit: number;
  text: string;
}

function readings(view: KeyLimitsView): MeterReading[] {
  const { limits } = view;
  const out: MeterReading[] = [];
  if (limits.rpm !== null) out.push({ id: 'rpm', label: 'Requests/min', used: view.requestsLastMinute, limit: limits.rpm, text: `${formatCount(view.requestsLastMinute)} / ${formatCount(limits.rpm)}` });
  if (limits.tpm !== null) out.push({ id: 'tpm', label: 'Tokens/min', used: view.tokensLastMinute, limit: limits.tpm, text: `${formatCount(view.tokensLastMinute)} / ${formatCount(limits.tpm)}` });
  if (limits.dailyUsd !== null) out.push({ id: 'dailyUsd', label: 'Today', used: view.spentTodayUsd, limit: limits.dailyUsd, text: `${formatUsd(view.spentTodayUsd)} / ${formatUsd(limits.dailyUsd)}` });
  if (limits.monthlyUsd !== null) out.push({ id: 'monthlyUsd', label: 'This month', used: view.spentThisMonthUsd, limit: limits.monthlyUsd, text: `${formatUsd(view.spentThisMonthUsd)} / ${formatUsd(limits.monthlyUsd)}` });
  return out;
}

function Meter({ reading, keyName }: { reading: MeterReading; keyName: string }) {
  const fraction = reading.limit === 0 ? 1 : Math.min(1, reading.used / reading.limit);
  const tone = fraction >= 1 ? 'danger' : fraction >= 0.75 ? 'warning' : 'ok';
  return (
    <div className={`limit-meter limit-meter-${tone}`}>
      <span className="limit-meter-label">{reading.label}</span>
      <div
        className="limit-meter-track"
        role="meter"
        aria-label={`${reading.label} for ${keyName}`}
        aria-valuemin={0}
        aria-valuemax={reading.limit}
        aria-valuenow={Math.min(reading.used, reading.limit)}
        aria-valuetext={reading.text}
      >
        <div className="limit-meter-fill" style={{ width: `${Math.round(fraction * 100)}%` }} />
      </div>
      <span className="limit-meter-value mono">{reading.text}</span>
    </div>
  );
}

/** A key's limits in a few words for its table row: "60/min · $5.00 a day", or "No limits". */
export function describeLimits(limits: KeyLimits | undefined): string {
  if (!limits || !hasLimits(limits)) return 'No limits';
  const parts: string[] = [];
  if (limits.rpm !== null) parts.push(`${formatCount(limits.rpm)} req/min`);
  if (limits.tpm !== null) parts.push(`${formatCount(limits.tpm)} tok/min`);
  if (limits.dailyUsd !== null) parts.push(`${formatUsd(limits.dailyUsd)} a day`);
  if (limits.monthlyUsd !== null) parts.push(`${formatUsd(limits.monthlyUsd)} a month`);
  return parts.join(' · ');
}

/** A key's meters (how close it is to each limit) and whether a limit blocks it now, in its panel. */
export function KeyLimitMeters({ keyId, keyName }: { keyId: string; keyName: string }) {
  const view = useKeyLimitsStore((state) => state.byKey[keyId]);
  const limits = view?.limits ?? NO_LIMITS;
  const shown = view && hasLimits(limits) ? readings(view) : [];
  return (
    <div className="key-limits">
      {shown.length > 0 ? (
        <div className="limit-meters" aria-label={`Limits of ${keyName}`}>
          {shown.map((reading) => (
            <Meter key={reading.id} reading={reading} keyName={keyName} />
          ))}
        </div>
      ) : (
        <span className="muted">No limits</span>
      )}
      {view?.budgetWarning && (
        <span className="badge badge-warning" title={view.budgetWarning}>
          Budget counts no unpriced calls
        </span>
      )}
      {view?.blocked && (
        <span className="badge badge-danger" title={view.blocked.message}>
          Blocked until {formatFullTime(view.blocked.resetsAt)}
        </span>
      )}
    </div>
  );
}

const asText = (value: number | null) => (value === null ? '' : String(value));

function usageHint(name: LimitField, view: KeyLimitsView | undefined): string | null {
  if (!view) return null;
  if (name === 'rpm') return `${formatCount(view.requestsLastMinute)} in the last minute${view.limits.rpm === null ? ' (counted while a limit is set)' : ''}`;
  if (name === 'tpm') return `${formatCount(view.tokensLastMinute)} in the last minute${view.limits.tpm === null ? ' (counted while a limit is set)' : ''}`;
  if (name === 'dailyUsd') return `${formatUsd(view.spentTodayUsd)} spent today`;
  return `${formatUsd(view.spentThisMonthUsd)} spent this month`;
}

export function KeyLimitsDialog({ keyId, keyName, view, onClose }: { keyId: string; keyName: string; view: KeyLimitsView | undefined; onClose(): void }) {
  const save = useKeyLimitsStore((state) => state.save);
  const clear = useKeyLimitsStore((state) => state.clear);
  const showToast = useToastStore((state) => state.show);
  const current = view?.limits ?? NO_LIMITS;
  const [values, setValues] = useState<Record<LimitField, string>>({
    rpm: asText(current.rpm),
    tpm: asText(current.tpm),
    dailyUsd: asText(current.dailyUsd),
    monthlyUsd: asText(current.monthlyUsd),
  });
  const { submitting, error, setError, submit } = useSubmission(toFormError);

  const run = (action: () => Promise<unknown>, done: string) =>
    submit(async () => {
      await action();
      showToast(done);
      onClose();
    });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const limits: Record<string, number | null> = {};
    for (const field of FIELDS) {
      const text = values[field.name].trim();
      if (text === '') {
        limits[field.name] = null;
        continue;
      }
      const value = Number(text);
      if (!Number.isFinite(value)) {
        setError({ message: `${field.label} must be a number, or empty for no limit`, param: field.name });
        return;
      }
      // Checked here too, so a slip is pointed out at once; the server checks again (and the CLI's input).
      if (field.step === '1' && (!Number.isInteger(value) || value < 1)) {
        setError({ message: `${field.label} must be a whole number of 1 or more, or empty for no limit`, param: field.name });
        return;
      }
      if (value < 0) {
        setError({ message: `${field.label} must be 0 or more (0 blocks the key), or empty for no limit`, param: field.name });
        return;
      }
      limits[field.name] = value;
    }
    void run(() => save(keyId, limits as unknown as KeyLimits), `Limits of ${keyName} saved`);
  };

  return (
    <Dialog
      title={`Limits of “${keyName}”`}
      description="Over a limit, calls get 429 with Retry-After and a message naming the limit. Budgets count each call’s cost from the model catalog; calls already running finish and are counted. Leave a field empty for no limit."
      onClose={onClose}
      size="medium"
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        <div className="form-grid form-grid-2">
          {FIELDS.map((field) => (
            <Field key={field.name} label={field.label} hint={usageHint(field.name, view) ?? field.hint} error={error?.param === field.name ? error.message : null}>
              <input
                className="input"
                type="number"
                inputMode="decimal"
                min={0}
                step={field.step}
                placeholder="No limit"
                value={values[field.name]}
                onChange={(event) => {
                  setValues({ ...values, [field.name]: event.target.value });
                  if (error?.param === field.name) setError(null);
                }}
              />
            </Field>
          ))}
        </div>
        {error && (error.param === null || !FIELDS.some((field) => field.name === error.param)) && <p className="field-error">{error.message}</p>}
        <div className="dialog-actions">
          {hasLimits(current) && (
            <button type="button" className="button button-ghost button-danger-text limits-remove" disabled={submitting} onClick={() => void run(() => clear(keyId), `Limits of ${keyName} removed`)}>
              Remove all limits
            </button>
          )}
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={submitting}>
            {submitting ? 'Saving…' : 'Save limits'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
