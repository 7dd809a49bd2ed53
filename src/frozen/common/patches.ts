/**
 * The patch ids frozen runs ask, and `has`, copied from durable/versions.ts and
 * durable/patches.ts as they were on 2026-11-28. Each id here is covered by both baselines,
 * asked newest first, then the id itself: the same `patched()` calls, in the same order, as live.
 */
import { patched } from '@temporalio/workflow';

export const Patch = {
  CheckoutCoordinator: 'checkout-coordinator-2026-11',
  StoreEvents: 'store-events-2026-11',
  PacedSlot: 'paced-slot-2026-11',
  TokenWait: 'token-wait-2026-11',
  QuotaStop: 'quota-stop-2026-11',
} as const;

/** Newest first; each covers every id above. */
const BASELINES = ['baseline-2026-11-29', 'baseline-2026-11-28'] as const;

export function has(id: (typeof Patch)[keyof typeof Patch]): boolean {
  return BASELINES.some((b) => patched(b)) || patched(id);
}
