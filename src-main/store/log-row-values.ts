// A call's record as the log stores it: one row's values, in the order of ROW_COLUMNS, made only of a
// redacted record (core/redacted-record.ts: redacted, its bodies kept or dropped and cut), its client
// told, and its local day worked out for the usage totals.
import type { RedactedCallRecord } from '../core/redacted-record.js';
import { localDay } from '../core/usage.js';
import { dialectOfPath } from '../codecs/usage-from-body.js';
import { priceCall } from '../catalog/pricing.js';
import { clientOf } from './usage-client.js';
import type { RowValues } from './log-row.js';

/** The local day last worked out, and the span of times (ms) it covers: [from, until). */
let knownDay = { from: 0, until: 0, day: '' };

/**
 * localDay of a time, remembered for the rest of that local day: rows come in time order, and the
 * calendar fields of a Date cost a time-zone lookup each. The span is read from the local calendar
 * itself (midnight to midnight), so a DST change is respected.
 */
function dayOf(time: number): string {
  if (time >= knownDay.from && time < knownDay.until) return knownDay.day;
  const date = new Date(time);
  const day = localDay(date);
  const from = new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const until = new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
  // An invalid time (NaN) never matches a span: it is worked out each time, as before.
  if (time >= from && time < until) knownDay = { from, until, day };
  return day;
}

/**
 * The row of one call, from its redacted record (which kept or dropped its bodies). Usage comes as the
 * gateway read it; a call it did not price is priced here from that usage.
 */
export function toRowValues(input: RedactedCallRecord): RowValues {
  // A row the gateway did not name a dialect for is known by its path (a model list has none).
  const dialect = input.dialect ?? dialectOfPath(input.path);
  // The gateway hands every row its usage as it read it from the answer (null when none was reported).
  const promptTokens = input.promptTokens ?? null;
  const completionTokens = input.completionTokens ?? null;
  const cacheReadTokens = input.cacheReadTokens ?? null;
  const cacheWriteTokens = input.cacheWriteTokens ?? null;
  const reasoningTokens = input.reasoningTokens ?? null;
  const costUsd =
    input.costUsd !== undefined
      ? input.costUsd
      : priceCall(
          input.provider,
          input.model,
          promptTokens === null
            ? undefined
            : { inputTokens: promptTokens, outputTokens: completionTokens ?? 0, cacheReadTokens: cacheReadTokens ?? 0, cacheWriteTokens: cacheWriteTokens ?? 0, reasoningTokens: reasoningTokens ?? 0 },
        );
  return [
    input.createdAt,
    input.traceId,
    JSON.stringify(input.metadata),
    input.keyId,
    input.provider,
    input.model,
    input.path,
    input.status,
    Math.round(input.latencyMs * 1000) / 1000,
    input.ttfbMs === null ? null : Math.round(input.ttfbMs * 1000) / 1000,
    promptTokens,
    completionTokens,
    input.stream ? 1 : 0,
    input.error,
    input.attempts,
    input.attemptLog?.length ? JSON.stringify(input.attemptLog) : null,
    JSON.stringify(input.requestHeaders),
    input.requestBody,
    input.responseBody,
    dialect,
    input.providerFormat ?? null,
    input.dropped?.length ? JSON.stringify(input.dropped) : null,
    cacheReadTokens,
    cacheWriteTokens,
    reasoningTokens,
    costUsd,
    input.mcp ? input.mcp.client : clientOf(input.requestHeaders['user-agent'], dialect),
    dayOf(input.createdAt),
    input.route ?? null,
    input.routeTarget ?? null,
    input.targetKeyId ?? null,
    input.count !== undefined && input.count !== 1 ? input.count : null,
    input.usageEstimated ? 1 : null,
    input.mcp ? 'mcp' : null,
    input.mcp?.server ?? null,
    input.mcp?.tool ?? null,
    input.servedModel !== undefined ? input.servedModel : input.model,
    input.sessionId ?? null,
  ];
}
