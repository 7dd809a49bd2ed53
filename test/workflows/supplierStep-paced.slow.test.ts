/**
 * A call dropflow's own pacing held back ("not sent, the next free slot of the account is N s
 * away") is queueing, not a failure: the order waits for that slot and no longer — its pause
 * does not grow with every held attempt — and never asks a person for it. Many orders on an
 * account whose workers pace its calls far below the rate the server hands them out at.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { expect, it } from 'vitest';
import { Stage, statusQuery } from '../../src/order/contract.js';
import type { SupplierFailureDetails } from '../../src/supplier/failureDetails.js';
import { eventually } from '../support/eventually.js';
import { startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';

const ORDERS = 6;

// The server hands out 4 calls a second; the workers' pacing lets one through every 4 s.
const h = useOrderHarness('paced', undefined, { ratePerSecond: 4, pacedPerSecond: 0.25 });

interface PacedWait {
  /** The slot distance the held call reported. */
  retryAfterMs: number;
  /** The timer the workflow started next. */
  timerMs: number;
}

it(
  'orders held back by the account pacing wait for their slot, never longer, and ask nobody',
  async () => {
    const handles: WorkflowHandle[] = [];
    for (let i = 0; i < ORDERS; i += 1) {
      handles.push(await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } })));
    }
    for (const handle of handles) {
      const status = await eventually(
        `${handle.workflowId} created`,
        () => handle.query(statusQuery),
        (s) => s.svcOrderId !== undefined || s.stage === Stage.NEEDS_ATTENTION,
        240_000,
        1_000,
      );
      expect(status.timeline.map((t) => t.stage)).not.toContain(Stage.NEEDS_ATTENTION);
    }

    const waits = (await Promise.all(handles.map(pacedWaits))).flat();
    // The account's pacing did hold calls back: the behaviour under test happened.
    expect(waits.length).toBeGreaterThanOrEqual(ORDERS / 2);
    const tooLong = waits.filter((w) => w.timerMs > w.retryAfterMs + SLOT_MARGIN_MS);
    expect(tooLong).toEqual([]);
  },
  6 * 60_000,
);

/** What the workflow may add to the slot distance it was told. */
const SLOT_MARGIN_MS = 1_000;

/** Every held (paced) activity failure in the history and the timer the workflow started next. */
async function pacedWaits(handle: WorkflowHandle): Promise<PacedWait[]> {
  const { events } = await handle.fetchHistory();
  const waits: PacedWait[] = [];
  let held: number | undefined;
  for (const e of events ?? []) {
    if (e.activityTaskScheduledEventAttributes || e.activityTaskCompletedEventAttributes) {
      held = undefined;
    }
    const failed = e.activityTaskFailedEventAttributes?.failure;
    if (failed) {
      const details = payloadJson(failed.applicationFailureInfo?.details?.payloads?.[0]?.data);
      held = details?.paced === true ? details.retryAfterMs : undefined;
    }
    const timer = e.timerStartedEventAttributes?.startToFireTimeout;
    if (timer && held !== undefined) {
      const timerMs = Number(timer.seconds ?? 0) * 1_000 + Math.round((timer.nanos ?? 0) / 1e6);
      waits.push({ retryAfterMs: held, timerMs });
      held = undefined;
    }
  }
  return waits;
}

function payloadJson(data: Uint8Array | null | undefined): SupplierFailureDetails | undefined {
  if (data == null) return undefined;
  return JSON.parse(Buffer.from(data).toString('utf8')) as SupplierFailureDetails;
}
