/**
 * The tracking sweeper's decisions, as pure functions (no activity; the time is passed in): how
 * ids are split into supplier calls, which orders need their proof of delivery, and what each order
 * is told — news that moves it on, or a flag that the supplier has gone quiet about it — given what
 * visibility says it knows and what the sweeper remembers having told it. Sandbox-safe.
 */
import { Stage, StaleReason, type SupplierNews } from '../order/contract.js';
import type { OrderSnapshot } from '../order/lookupActivities.js';
import type { PushedOrder, TrackedOrder } from './contract.js';
import { endedStatus, OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import { kept, type Watch } from './trackingMemory.js';
import { supplierIds } from './trackingMatch.js';

/** Ids per getOrderDetailBatch and getProofOfDelivery call: the supplier's limit. */
export const IDS_PER_CALL = 100;

/** A missing order is flagged only after this many sweeps in a row did not find it. */
export const MISSING_SWEEPS = 2;

export interface TrackingPolicy {
  /** A supplier status unchanged this long (ms) flags the order. */
  staleAfterMs: number;
  /** An order the supplier has not listed for this long (ms) is flagged. */
  missingAfterMs: number;
}

/** `items` in consecutive slices of at most `size`: ceil(n / size) of them. */
export function chunk<T>(items: readonly T[], size: number = IDS_PER_CALL): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size ${size}`);
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** How far a tracked order has come: the supplier's news matters only when it is further. */
const RANK: Partial<Record<Stage, number>> = {
  [Stage.PAID]: 0,
  [Stage.AWAITING_WAYBILL]: 1,
  [Stage.AWAITING_SHIPMENT]: 2,
  [Stage.SHIPPED]: 3,
  [Stage.DELIVERED]: 4,
};
const rankOf = (stage: Stage): number => RANK[stage] ?? -1;

/**
 * The stages in which the order waits for the supplier's news by itself: only there can it be
 * flagged (elsewhere it is at work, waits for a person already, or waits for its proof of delivery
 * on a deadline of its own).
 */
export const FLAGGED_STAGES: readonly Stage[] = [Stage.AWAITING_SHIPMENT, Stage.SHIPPED];

/** Orders whose proof of delivery is worth asking for: delivered, by either side's account. */
export function needsProof(order: TrackedOrder, snapshot: OrderSnapshot | undefined): boolean {
  if (snapshot === undefined || endedStatus(snapshot.orderStatus)) return false;
  return order.stage === Stage.DELIVERED || snapshot.orderStatus === OrderStatus.Delivered;
}

/** How the sweeper names an order in its message ids. */
const keyOf = (order: TrackedOrder): string =>
  order.svcOrderId ?? order.orderNumber ?? order.workflowId;

/** The id of one observation: the same observation always gets the same id (idempotent). */
export function sweepMessageId(key: string, orderStatus: string, proofCount: number): string {
  return `sweep:${key}:${orderStatus}:${proofCount}`;
}

/**
 * What to tell an order, or undefined when the supplier says nothing its stage does not already
 * reflect: shipped while before SHIPPED, delivered while before DELIVERED, proof of delivery while
 * DELIVERED, cancelled or closed at any stage.
 */
export function newsFor(
  order: TrackedOrder,
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
    messageId: sweepMessageId(keyOf(order), status, proofOfDelivery.length),
    kind: 'status',
    // Found by the order number under another supplier order (a split the order has not heard
    // of): that order's code, for the order to look up, never its own.
    svcOrderId:
      order.svcOrderId === undefined || supplierIds(snapshot).includes(order.svcOrderId)
        ? order.svcOrderId
        : snapshot.svcOrderId,
    orderStatus: status,
    ...(snapshot.subStatus !== undefined && { subStatus: snapshot.subStatus }),
    ...(snapshot.logisticName !== undefined && { logisticName: snapshot.logisticName }),
    ...(snapshot.trackNumber !== undefined && { trackNumber: snapshot.trackNumber }),
    ...(snapshot.trackingUrl !== undefined && { trackingUrl: snapshot.trackingUrl }),
    ...(proofOfDelivery.length > 0 && { proofOfDelivery: [...proofOfDelivery] }),
  };
}

/**
 * News for an order a logistics push named, with the push's tracking events: on the sweep's news
 * when there is some, else on their own under the push's messageId once the supplier shows the
 * order shipped (events inform; they never come before the parcel left).
 */
export function withEvents(
  news: SupplierNews | undefined,
  snapshot: OrderSnapshot | undefined,
  events: PushedOrder['events'],
): SupplierNews | undefined {
  if (events === undefined) return news;
  if (news !== undefined) return { ...news, trackingEvents: events.trackingEvents };
  if (!reachedStatus(snapshot?.orderStatus, OrderStatus.Shipped)) return undefined;
  return { messageId: events.messageId, kind: 'logistics', trackingEvents: events.trackingEvents };
}

/** A supplier date (UTC, `yyyy-MM-dd HH:mm:ss`, or ISO 8601 with a T) as epoch ms. */
export function supplierTime(text: string | undefined): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text ?? '');
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** Roughly how long, for people. */
export function age(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours < 1) return `${Math.max(0, Math.round(ms / 60_000))} min`;
  if (hours < 48) return `${Math.round(hours)} h`;
  return `${Math.round(hours / 24)} days`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The flag for an order whose supplier status has not changed for `staleAfterMs`: paid and not
 * shipped since its payment, or shipped and not delivered since it left the warehouse. Counted from
 * the status's own date, or from the last flag when that is later. Undefined when the supplier's
 * view trails the order's stage (its query lags) or gives no date.
 */
export function unmovedNews(
  order: TrackedOrder,
  snapshot: OrderSnapshot,
  flaggedAt: number | undefined,
  policy: TrackingPolicy,
  now: number,
): SupplierNews | undefined {
  if (!FLAGGED_STAGES.includes(order.stage)) return undefined;
  const status = snapshot.orderStatus;
  let dated: { stage: Stage; date: string | undefined; what: string };
  if (status === OrderStatus.Unshipped) {
    dated = {
      stage: Stage.AWAITING_SHIPMENT,
      date: snapshot.paymentDate ?? snapshot.createDate,
      what: 'paid and not shipped',
    };
  } else if (status === OrderStatus.Shipped) {
    dated = {
      stage: Stage.SHIPPED,
      date: snapshot.outWarehouseTime ?? snapshot.paymentDate ?? snapshot.createDate,
      what: 'shipped and not delivered',
    };
  } else {
    return undefined;
  }
  if (rankOf(dated.stage) < rankOf(order.stage)) return undefined;
  const anchor = supplierTime(dated.date);
  if (anchor === undefined) return undefined;
  const since = Math.max(anchor, flaggedAt ?? anchor);
  if (now - since < policy.staleAfterMs) return undefined;
  return {
    messageId: `sweep:${keyOf(order)}:${StaleReason.Unmoved}:${status}:${since}`,
    kind: 'stale',
    stale: {
      reason: StaleReason.Unmoved,
      since: iso(anchor),
      note: `the supplier shows the order ${dated.what} since ${iso(anchor)}: no change for ${age(now - anchor)} (limit ${age(policy.staleAfterMs)})`,
    },
  };
}

/** The flag for an order the supplier has not listed since `since`, asked by all its ids. */
export function missingNews(order: TrackedOrder, since: number, now: number): SupplierNews {
  const askedBy = [
    ...(order.svcOrderId === undefined ? [] : [`svc order id ${order.svcOrderId}`]),
    ...(order.orderNumber === undefined ? [] : [`order number ${order.orderNumber}`]),
  ].join(' and ');
  return {
    messageId: `sweep:${keyOf(order)}:${StaleReason.Missing}:${since}`,
    kind: 'stale',
    stale: {
      reason: StaleReason.Missing,
      since: iso(since),
      note: `the supplier has not listed the order since ${iso(since)} (${age(now - since)}), asked by ${askedBy}`,
    },
  };
}

/** What one sweep learnt of an order. */
export type Observation =
  | { answer: 'found'; snapshot: OrderSnapshot; proof: readonly string[] | undefined }
  /** Every call that asked for it was answered, and none listed it. */
  | { answer: 'missing' }
  /** A call that asked for it failed: nothing learnt. */
  | { answer: 'unknown' };

export interface Verdict {
  /** What to send the order now, if anything. */
  news?: SupplierNews;
  /** What to remember of the order (before any news is sent); undefined: nothing. */
  watch?: Watch;
  /** True when the news due was sent before and still applies: not sent again. */
  toldBefore: boolean;
}

/**
 * What to tell an order after this sweep's `observation`, and what to remember of it. News that
 * moves the order on comes first; an order without news is flagged when the supplier has not
 * listed it in MISSING_SWEEPS sweeps in a row spanning `missingAfterMs`, or its status has not
 * changed for `staleAfterMs`. The same news is never sent twice in a row.
 */
export function judge(
  order: TrackedOrder,
  observation: Observation,
  watch: Watch | undefined,
  policy: TrackingPolicy,
  now: number,
  sweep: number,
): Verdict {
  const listedBefore = watch?.seen === sweep;
  const next: Watch = { ...watch, seen: sweep };
  if (observation.answer === 'unknown') return { watch: kept(next), toldBefore: false };
  if (observation.answer === 'missing') {
    // An order listed twice in one sweep is missed once.
    if (!listedBefore) {
      next.missingSince ??= now;
      next.missingSweeps = (next.missingSweeps ?? 0) + 1;
    }
    const since = next.missingSince ?? now;
    const due =
      FLAGGED_STAGES.includes(order.stage) &&
      (next.missingSweeps ?? 0) >= MISSING_SWEEPS &&
      now - since >= policy.missingAfterMs;
    return offer(next, due ? missingNews(order, since, now) : undefined);
  }
  delete next.missingSince;
  delete next.missingSweeps;
  const { snapshot, proof } = observation;
  return offer(
    next,
    newsFor(order, snapshot, proof) ?? unmovedNews(order, snapshot, next.flaggedAt, policy, now),
  );
}

function offer(watch: Watch, news: SupplierNews | undefined): Verdict {
  if (news === undefined) {
    // Nothing due: what was sent before is reflected now, or no longer applies.
    delete watch.told;
    return { watch: kept(watch), toldBefore: false };
  }
  if (news.messageId === watch.told) return { watch: kept(watch), toldBefore: true };
  return { news, watch: kept(watch), toldBefore: false };
}

/** What to remember of an order once `news` reached it. */
export function told(
  watch: Watch | undefined,
  news: SupplierNews,
  now: number,
  sweep: number,
): Watch {
  const next: Watch = { ...(watch ?? { seen: sweep }), told: news.messageId };
  if (news.stale?.reason === StaleReason.Unmoved) next.flaggedAt = now;
  if (news.stale?.reason === StaleReason.Missing) {
    // After a resume the order is looked for afresh.
    delete next.missingSince;
    delete next.missingSweeps;
  }
  return next;
}
