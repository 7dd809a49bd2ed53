/**
 * Trust, then verify (docs/architecture.md §10 "Supplier news"): a webhook is signed with a key
 * that some pushes carry in their body and has no timestamp, so news that would end, pay or
 * re-identify an order is acted on only once the supplier's own order query shows it.
 * `supplierConfirms` is that one step: given what a push claims and what in the supplier's answer
 * would confirm it, it looks the order up — again while the supplier's view may still trail
 * (`supplierLagMs`, a bounded number of look-ups) — and returns what the supplier confirms, or
 * why it does not.
 */
import { sleep } from '@temporalio/workflow';
import type { Activities } from '../../durable/activityProxies.js';
import type { StepHost } from '../../durable/stepHost.js';
import { supplierCall } from '../../durable/supplierStep.js';
import type { OrderSnapshot } from '../lookupActivities.js';

/** What a push claims, and how the supplier's answer would confirm it. */
export interface PushClaim<T> {
  /** The claim in words, for the timeline: `CANCELLED`, `connected`, `split into 2 orders`. */
  claim: string;
  /** The ids to look up (svc order ids or codes, or the orderNumber); at most 100. */
  ids: readonly string[];
  /** What in the supplier's answer confirms the claim; undefined: it does not (yet). */
  confirms: (shown: readonly OrderSnapshot[]) => T | undefined;
}

export type Confirmation<T> =
  | { confirmed: true; value: T; shown: readonly OrderSnapshot[] }
  /** `shown`: the supplier's last answer, the truth to go on with. */
  | { confirmed: false; reason: string; shown: readonly OrderSnapshot[] };

/**
 * After the first look-up, the waits before the next ones as shares of the supplier's lag: the
 * last look-up comes once the whole lag has passed since the first (4 look-ups at most).
 */
const RECHECK_SHARES = [0.25, 0.25, 0.5] as const;

/** The look-up step's name, as a stop's reason shows it. */
export const CONFIRM_STEP = 'getOrderDetailBatch';

/**
 * Looks the claim up at the supplier until it is confirmed or the supplier's view had its lag to
 * catch up. A look-up that keeps failing stops at NEEDS_ATTENTION like any supplier step (resume
 * looks again); nothing is acted on meanwhile.
 */
export async function supplierConfirms<T>(
  host: StepHost,
  acts: Activities,
  push: PushClaim<T>,
): Promise<Confirmation<T>> {
  let shown: readonly OrderSnapshot[] = [];
  for (let look = 0; ; look += 1) {
    ({ value: shown } = await supplierCall(host, {
      name: CONFIRM_STEP,
      send: () => acts.batch.getOrderDetailBatch([...push.ids]),
    }));
    const value = push.confirms(shown);
    if (value !== undefined) {
      if (look > 0) host.doneWaiting();
      return { confirmed: true, value, shown };
    }
    const share = RECHECK_SHARES[look];
    if (share === undefined) break;
    const ms = Math.max(1_000, Math.round(host.supplierLagMs * share));
    host.waitFor(
      `the supplier to show what a webhook said (${push.claim}): looking again in ${Math.round(ms / 1000)} s`,
    );
    await sleep(ms);
  }
  host.doneWaiting();
  const seconds = Math.round(host.supplierLagMs / 1000);
  return {
    confirmed: false,
    reason: `the supplier does not show it (${describe(shown)}) after ${RECHECK_SHARES.length + 1} look-ups over ${seconds} s`,
    shown,
  };
}

function describe(shown: readonly OrderSnapshot[]): string {
  if (shown.length === 0) return 'no such order';
  return shown.map((s) => `${s.svcOrderId}: ${s.orderStatus ?? 'no status'}`).join(', ');
}
