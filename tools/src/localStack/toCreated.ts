/**
 * How long orders took from submit until the supplier had them (their first `CREATED` on the
 * timeline): the figure that shows orders queueing for the account's budget or a token. Used by
 * `dropflow bench orders` and the chaos report.
 */
import { Stage, type OrderStatus } from 'dropflow/client';

/** The value at quantile `q` (0…1) of ascending `sorted`, nearest-rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

export interface ToCreated {
  /** Orders that reached CREATED (the figures are over these). */
  orders: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

/** Milliseconds from `submittedAt` (epoch ms) to the order's first CREATED; undefined before. */
export function toCreatedMs(status: OrderStatus, submittedAt: number): number | undefined {
  const created = status.timeline.find((entry) => entry.stage === Stage.CREATED);
  return created === undefined ? undefined : Math.max(0, Date.parse(created.at) - submittedAt);
}

/** p50 and p99 (nearest rank) of the orders' submit → CREATED times. */
export function toCreatedSummary(ms: readonly number[]): ToCreated {
  const sorted = [...ms].sort((a, b) => a - b);
  const orNull = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    orders: sorted.length,
    p50Ms: orNull(quantile(sorted, 0.5)),
    p99Ms: orNull(quantile(sorted, 0.99)),
  };
}
