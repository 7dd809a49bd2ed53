/**
 * What every supplier request did, as metrics: by endpoint and outcome code, its latency, and the
 * rate-limit refusals. Recorded where the answer is read (http.ts), so token calls, retries and
 * resends after a 1600200 all count.
 */
import { counterOf, histogramOf, METRICS } from '../telemetry/metrics.js';
import { lazyInstruments } from '../telemetry/runtimeMeter.js';
import { SupplierCode } from './errors.js';

const instruments = lazyInstruments((meter) => ({
  requests: counterOf(meter, METRICS.supplierRequests),
  latency: histogramOf(meter, METRICS.supplierRequestLatency),
  rateLimited: counterOf(meter, METRICS.supplierRateLimited),
}));

/** How a request ended: the supplier's envelope, an answer without one, or no answer at all. */
export type RequestOutcome =
  { envelopeCode: number; status: number } | { status: number } | { network: true };

/** The `code` label: the envelope's code, `http_<status>` without an envelope, or `network`. */
export function outcomeCode(outcome: RequestOutcome): string {
  if ('network' in outcome) return 'network';
  if ('envelopeCode' in outcome) return String(outcome.envelopeCode);
  return `http_${outcome.status}`;
}

export function isRateLimited(outcome: RequestOutcome): boolean {
  if ('network' in outcome) return false;
  return (
    outcome.status === 429 ||
    ('envelopeCode' in outcome && outcome.envelopeCode === SupplierCode.TooManyRequests)
  );
}

export function recordSupplierRequest(
  endpoint: string,
  outcome: RequestOutcome,
  elapsedMs: number,
): void {
  const { requests, latency, rateLimited } = instruments();
  requests.add(1, { endpoint, code: outcomeCode(outcome) });
  latency.record(Math.max(0, Math.round(elapsedMs)), { endpoint });
  if (isRateLimited(outcome)) rateLimited.add(1, { endpoint });
}
