/**
 * The tracking sweeper (architecture §5): one run asks the supplier about every open order of the
 * account that waits for it, in batches, and signals only the orders whose state changed. A
 * Temporal Schedule per account starts it (temporal/trackingSchedule.ts); orders never poll.
 *
 * The account is the queue set the sweep runs on: it lists the order workflows of its own orders
 * queue and asks the supplier queue of the same set (queuesOf) at the tracking priority, behind
 * every order's calls. trackInfo is not asked: the order detail already carries the status, the
 * tracking number and URL and the logistics line, which is all a `supplierStatus` holds, and
 * trackInfo would spend more of the account's budget that order creation and payment need.
 */
import { ActivityFailure, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BatchActivities } from '../activities/index.js';
import type { OrderSnapshot } from '../activities/lookups.js';
import type {
  OrchestrationActivities,
  OrderSignal,
  TrackedOrder,
} from '../activities/orchestration.js';
import { queuesOf } from '../temporal/taskQueues.js';
import { SupplierPriority } from './supplierPriority.js';
import { chunk, needsProof, newsFor } from './trackingChanges.js';

export interface TrackingSweepInput {
  /** Visibility results per page (default 1000). */
  pageSize?: number;
}

export interface TrackingSweepSummary {
  /** Tracked orders found in visibility. */
  orders: number;
  /** Supplier calls on the batch queue: detailCalls + proofCalls. */
  batchCalls: number;
  detailCalls: number;
  proofCalls: number;
  /** Batch calls that failed after their retries; their orders wait for the next sweep. */
  failedCalls: number;
  /** Orders the supplier did not know (or no longer lists). */
  missing: number;
  /** Orders told something new. */
  signalled: number;
  /** Orders that had closed by the time of their signal. */
  closed: number;
}

const PAGE_SIZE = 1_000;
/** Signals per signalOrders activity: bounded activity input, steady progress. */
const SIGNALS_PER_CALL = 100;

const orchestration = () =>
  proxyActivities<OrchestrationActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  });

const batch = () =>
  proxyActivities<BatchActivities>({
    // The account's one supplier queue, behind payments, carts and creates.
    taskQueue: queuesOf(workflowInfo().taskQueue).supplier,
    priority: { priorityKey: SupplierPriority.Tracking },
    // Waiting in the queue's backlog counts here, not in startToClose.
    scheduleToCloseTimeout: '10 minutes',
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  });

export async function trackingSweep(input: TrackingSweepInput = {}): Promise<TrackingSweepSummary> {
  const ordersQueue = workflowInfo().taskQueue;
  const { listTrackedOrders, signalOrders } = orchestration();
  const { getOrderDetailBatch, getProofOfDelivery } = batch();
  const summary: TrackingSweepSummary = {
    orders: 0,
    batchCalls: 0,
    detailCalls: 0,
    proofCalls: 0,
    failedCalls: 0,
    missing: 0,
    signalled: 0,
    closed: 0,
  };

  // 1. Every tracked order, one entry per svc order id (pages may overlap while stages change).
  const bySvcOrderId = new Map<string, TrackedOrder>();
  let pageToken: string | undefined;
  do {
    const page = await listTrackedOrders({
      ordersQueue,
      pageSize: input.pageSize ?? PAGE_SIZE,
      ...(pageToken !== undefined && { pageToken }),
    });
    for (const order of page.orders) bySvcOrderId.set(order.svcOrderId, order);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  const orders = [...bySvcOrderId.values()];
  summary.orders = orders.length;
  if (orders.length === 0) return summary;

  // 2. Their supplier state, 100 ids per call; the batch queue paces the calls.
  const snapshots = new Map<string, OrderSnapshot>();
  const unanswered = new Set<string>();
  await Promise.all(
    chunk(orders.map((o) => o.svcOrderId)).map(async (ids) => {
      summary.detailCalls += 1;
      const found = await orFailed(getOrderDetailBatch(ids), 'getOrderDetailBatch', summary);
      if (found === undefined) for (const id of ids) unanswered.add(id);
      for (const snapshot of found ?? []) snapshots.set(snapshot.svcOrderId, snapshot);
    }),
  );
  const known = orders.filter((o) => snapshots.has(o.svcOrderId));
  summary.missing = orders.filter(
    (o) => !snapshots.has(o.svcOrderId) && !unanswered.has(o.svcOrderId),
  ).length;

  // 3. Proof of delivery for the delivered ones, 100 ids per call.
  const proofs = new Map<string, string[]>();
  await Promise.all(
    chunk(
      known.filter((o) => needsProof(o, snapshots.get(o.svcOrderId))).map((o) => o.svcOrderId),
    ).map(async (ids) => {
      summary.proofCalls += 1;
      const found = await orFailed(getProofOfDelivery(ids), 'getProofOfDelivery', summary);
      for (const [id, urls] of Object.entries(found ?? {})) proofs.set(id, urls);
    }),
  );
  summary.batchCalls = summary.detailCalls + summary.proofCalls;

  // 4. Only the orders the supplier has news for.
  const signals: OrderSignal[] = known.flatMap((order) => {
    const news = newsFor(order, snapshots.get(order.svcOrderId), proofs.get(order.svcOrderId));
    return news === undefined ? [] : [{ workflowId: order.workflowId, news }];
  });
  for (const slice of chunk(signals, SIGNALS_PER_CALL)) {
    const outcome = await signalOrders(slice);
    summary.signalled += outcome.signalled;
    summary.closed += outcome.closed;
  }

  log.info('tracking sweep done', { ...summary });
  return summary;
}

/** The call's result, or undefined (counted and logged) when it failed after its retries. */
async function orFailed<T>(
  call: Promise<T>,
  endpoint: string,
  summary: TrackingSweepSummary,
): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    summary.failedCalls += 1;
    log.warn('tracking sweep: a batch call failed; its orders wait for the next sweep', {
      endpoint,
      error: err.cause?.message ?? err.message,
    });
    return undefined;
  }
}
