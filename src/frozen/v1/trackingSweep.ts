/**
 * The tracking sweep as it ran before it matched the supplier's answers by every id, flagged
 * orders the supplier went quiet about, and continued as new page by page: one run listed every
 * tracked order, asked about all of them and signalled the changed ones. Frozen: sweeps that
 * started on it finish on it (../trackingSweep.ts chooses at the start). The activity stubs are
 * passed in, so it asks the same queues as the current sweep.
 */
import { ActivityFailure, log } from '@temporalio/workflow';
import type { OrderSnapshot } from '../../tracking/lookupActivities.js';
import type {
  OrchestrationActivities,
  OrderSignal,
  TrackedOrder,
} from '../../tracking/orchestrationActivities.js';
import type { BatchActivities } from '../../durable/supplierActivities.js';
import { Stage, type SupplierNews } from '../../order/contract.js';
import { endedStatus, OrderStatus } from '../../supplier/api/constants.js';

export interface TrackingSweepV1Input {
  /** Visibility results per page (default 1000). */
  pageSize?: number;
}

export interface TrackingSweepV1Summary {
  orders: number;
  batchCalls: number;
  detailCalls: number;
  proofCalls: number;
  failedCalls: number;
  missing: number;
  signalled: number;
  closed: number;
}

export type SweepV1Activities = Pick<
  OrchestrationActivities,
  'listTrackedOrders' | 'signalOrders'
> &
  Pick<BatchActivities, 'getOrderDetailBatch' | 'getProofOfDelivery'>;

type KnownOrder = TrackedOrder & { svcOrderId: string };

const PAGE_SIZE = 1_000;
const SIGNALS_PER_CALL = 100;
const IDS_PER_CALL = 100;

export async function trackingSweepV1(
  input: TrackingSweepV1Input,
  acts: SweepV1Activities,
  ordersQueue: string,
): Promise<TrackingSweepV1Summary> {
  const { listTrackedOrders, signalOrders, getOrderDetailBatch, getProofOfDelivery } = acts;
  const summary: TrackingSweepV1Summary = {
    orders: 0,
    batchCalls: 0,
    detailCalls: 0,
    proofCalls: 0,
    failedCalls: 0,
    missing: 0,
    signalled: 0,
    closed: 0,
  };

  const bySvcOrderId = new Map<string, KnownOrder>();
  let pageToken: string | undefined;
  do {
    const page = await listTrackedOrders({
      ordersQueue,
      pageSize: input.pageSize ?? PAGE_SIZE,
      ...(pageToken !== undefined && { pageToken }),
    });
    for (const order of page.orders) {
      if (order.svcOrderId !== undefined)
        bySvcOrderId.set(order.svcOrderId, { ...order, svcOrderId: order.svcOrderId });
    }
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  const orders = [...bySvcOrderId.values()];
  summary.orders = orders.length;
  if (orders.length === 0) return summary;

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

async function orFailed<T>(
  call: Promise<T>,
  endpoint: string,
  summary: TrackingSweepV1Summary,
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

function chunk<T>(items: readonly T[], size: number = IDS_PER_CALL): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

const RANK: Partial<Record<Stage, number>> = {
  [Stage.PAID]: 0,
  [Stage.AWAITING_WAYBILL]: 1,
  [Stage.AWAITING_SHIPMENT]: 2,
  [Stage.SHIPPED]: 3,
  [Stage.DELIVERED]: 4,
};
const rankOf = (stage: Stage): number => RANK[stage] ?? -1;

function needsProof(order: TrackedOrder, snapshot: OrderSnapshot | undefined): boolean {
  if (snapshot === undefined || endedStatus(snapshot.orderStatus)) return false;
  return order.stage === Stage.DELIVERED || snapshot.orderStatus === OrderStatus.Delivered;
}

function newsFor(
  order: KnownOrder,
  snapshot: OrderSnapshot | undefined,
  proof: readonly string[] | undefined,
): SupplierNews | undefined {
  const status = snapshot?.orderStatus;
  if (snapshot === undefined || status === undefined) return undefined;
  const rank = rankOf(order.stage);
  const proofOfDelivery = proof ?? [];
  const changed =
    endedStatus(status) ||
    (status === OrderStatus.Shipped && rank < rankOf(Stage.SHIPPED)) ||
    (status === OrderStatus.Delivered && rank < rankOf(Stage.DELIVERED)) ||
    (status === OrderStatus.Delivered &&
      order.stage === Stage.DELIVERED &&
      proofOfDelivery.length > 0);
  if (!changed) return undefined;
  return {
    messageId: `sweep:${order.svcOrderId}:${status}:${proofOfDelivery.length}`,
    kind: 'status',
    svcOrderId: order.svcOrderId,
    orderStatus: status,
    ...(snapshot.subStatus !== undefined && { subStatus: snapshot.subStatus }),
    ...(snapshot.logisticName !== undefined && { logisticName: snapshot.logisticName }),
    ...(snapshot.trackNumber !== undefined && { trackNumber: snapshot.trackNumber }),
    ...(snapshot.trackingUrl !== undefined && { trackingUrl: snapshot.trackingUrl }),
    ...(proofOfDelivery.length > 0 && { proofOfDelivery: [...proofOfDelivery] }),
  };
}
