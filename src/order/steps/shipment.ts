/**
 * After payment: the waybill (flow A), then following the supplier's news — webhooks and the
 * tracking sweeper — through SHIPPED and DELIVERED to proof of delivery and COMPLETED.
 */

import { Stage, type StaleNews, type WaybillInput } from '../contract.js';
import { FailureType } from '../../supplier/failureDetails.js';
import {
  endedStatus,
  OrderStatus,
  reachedStatus,
  UnshippedSubStatus,
} from '../../supplier/api/constants.js';
import { SupplierCode } from '../../supplier/errors.js';
import { activities, type Activities } from '../../durable/activityProxies.js';
import { failureInfo, isBusiness } from '../../durable/failures.js';
import type { Order } from '../order.js';
import { Patch } from '../../durable/versions.js';
import { lookUpOrder, ownOrder } from './lookup.js';
import { supplierConfirms } from './confirmNews.js';
import type { OrderSnapshot } from '../lookupActivities.js';
import { supplierStep, type Seen } from '../../durable/supplierStep.js';
import { followParcels, settleSplits } from './parcels.js';
import { flaggedStale, STALE_STAGES } from './stale.js';
import { has } from '../../durable/patches.js';

/** Flow A: the warehouse starts work only once it has the waybill. */
export async function uploadWaybill(o: Order, acts: Activities): Promise<void> {
  let waybill: WaybillInput | undefined = o.current.input.fulfillment.waybill;
  for (;;) {
    if (waybill === undefined) {
      const action = await o.waits.at(
        Stage.AWAITING_WAYBILL,
        'provideWaybill (carrier, tracking number, label file)',
        ['provideWaybill'],
      );
      if (!action) continue;
      waybill = action.input as WaybillInput;
      o.actions.answer(action, 'uploading the waybill');
    }
    const label = waybill;
    const result = await supplierStep(o.waits, {
      name: 'uploadWaybillInfo',
      send: () =>
        acts.supplierOnce.uploadWaybillInfo({
          svcOrderId: o.view.status.svcOrderId!,
          waybill: label,
        }),
      lookUp: () => waybillSeen(o, acts, label),
      // Refused as if the order had moved on: an upload whose answer was lost may have done it.
      doubtful: (f) => isBusiness(f, SupplierCode.OrderStatusChanged),
      expected: (f) =>
        isBusiness(f, SupplierCode.CarrierNotSupported) || f.type === FailureType.InvalidRequest,
    });
    if (result.ok) {
      o.view.note(
        `waybill uploaded (${label.carrier} ${label.trackNumber})${result.found ? `: ${result.note ?? 'found'}` : ''}`,
      );
      return;
    }
    // A waybill the warehouse cannot take: ask for another one.
    o.view.enter(Stage.AWAITING_WAYBILL);
    o.view.failed(failureInfo('uploadWaybillInfo', result.failure));
    waybill = undefined;
  }
}

/** The warehouse has the waybill: its tracking number shows, it is processing, or it shipped. */
async function waybillSeen(o: Order, acts: Activities, waybill: WaybillInput): Promise<Seen<void>> {
  const now = await lookUpOrder(o, acts);
  const seen =
    now !== undefined &&
    (now.trackNumber === waybill.trackNumber ||
      (now.orderStatus === OrderStatus.Unshipped &&
        now.subStatus === UnshippedSubStatus.Processing) ||
      reachedStatus(now.orderStatus, OrderStatus.Shipped));
  return seen ? { done: true, value: undefined, note: 'the warehouse has it' } : { done: false };
}

/**
 * Follows the order to COMPLETED (or CANCELLED by the supplier). When the sweeper says the supplier
 * has gone quiet about it, waits for a person at NEEDS_ATTENTION (see `flaggedStale`).
 */
export async function followDelivery(o: Order, acts: Activities): Promise<void> {
  o.view.enter(Stage.AWAITING_SHIPMENT);
  const proofWaitMs = o.current.input.fulfillment.proofOfDeliveryWaitHours * 3_600_000;
  /** When the wait for proof ends: set once, on delivery, whatever news arrives after. */
  let proofDeadline: number | undefined;
  /** The last `stale` news acted on (a new message brings a new object). */
  let staleSeen: StaleNews | undefined;
  let staleFlags: boolean | undefined;
  for (;;) {
    if (o.parcels.unsettled) await settleSplits(o, activities());
    if (o.parcels.split) return followParcels(o, activities(), proofWaitMs);
    const seen = o.supplier.version;
    if (pushedShipping(o) && has(Patch.ShippingConfirmed)) await confirmShipping(o, acts);
    const s = o.supplier.news.orderStatus;
    o.delivery.trackingHeard();
    if (endedStatus(s)) {
      if (o.supplier.statusFromPush && has(Patch.PushesConfirmed)) {
        const confirmed = await confirmEnded(o, acts, s!);
        if (!confirmed) continue;
      }
      o.cancelled(`the supplier reports the order ${s}`, 'supplier');
      return;
    }
    if (reachedStatus(s, OrderStatus.Shipped) && o.view.stage === Stage.AWAITING_SHIPMENT) {
      o.delivery.shipped();
    }
    if (reachedStatus(s, OrderStatus.Delivered) && o.view.stage !== Stage.DELIVERED) {
      o.delivery.delivered();
      proofDeadline = new Date().getTime() + proofWaitMs;
    }
    if (o.view.stage === Stage.DELIVERED && proofDeadline !== undefined) {
      if ((o.supplier.news.proofOfDelivery?.length ?? 0) > 0) {
        o.delivery.proofOfDeliveryReceived(o.supplier.news.proofOfDelivery!);
        return;
      }
      const left = Math.max(0, proofDeadline - new Date().getTime());
      const arrived = await o.supplier.waitForNews(seen, left);
      if (!arrived) {
        if (!(await deliveryShown(o, acts))) continue;
        o.delivery.completedWithoutProof(
          `delivered; no proof of delivery after ${o.current.input.fulfillment.proofOfDeliveryWaitHours} h`,
        );
        return;
      }
      continue;
    }
    if (o.storeSide.cancelWaiting !== undefined && o.money.paid) {
      await storeCancelledAfterPayment(o, o.storeSide.cancelWaiting);
      continue;
    }
    const stale = o.supplier.news.stale;
    if (stale !== undefined && stale !== staleSeen && STALE_STAGES.includes(o.view.stage)) {
      staleSeen = stale;
      staleFlags ??= has(Patch.TrackingStaleFlags);
      if (staleFlags) {
        await flaggedStale(o, stale);
        continue;
      }
    }
    await o.supplier.waitForNews(seen);
  }
}

/** A webhook's word that would ship or deliver the order, or tell the store a tracking. */
function pushedShipping(o: Order): boolean {
  const s = o.supplier.news.orderStatus;
  const moves =
    o.supplier.statusFromPush &&
    !endedStatus(s) &&
    ((o.view.stage === Stage.AWAITING_SHIPMENT && reachedStatus(s, OrderStatus.Shipped)) ||
      (o.view.stage !== Stage.DELIVERED && reachedStatus(s, OrderStatus.Delivered)));
  return moves || o.supplier.trackingFromPush;
}

/**
 * A webhook said the order shipped (or was delivered), or gave it a tracking number or link:
 * looked up, and the supplier's answer taken instead — its status and its tracking. Not shown,
 * the push is noted and forgotten: no stage, no tracking, nothing told to the store.
 */
async function confirmShipping(o: Order, acts: Activities): Promise<void> {
  const status = o.supplier.statusFromPush ? o.supplier.news.orderStatus : undefined;
  const atLeast = reachedStatus(status, OrderStatus.Delivered)
    ? OrderStatus.Delivered
    : OrderStatus.Shipped;
  const number = o.supplier.trackingFromPush ? o.supplier.news.trackNumber : undefined;
  const claim = [status, number !== undefined && `tracking ${number}`]
    .filter(Boolean)
    .join(' with ');
  const own = (shown: readonly OrderSnapshot[]) => ownOrder(o, shown);
  const answer = await supplierConfirms(o.waits, acts, {
    claim: claim || 'a tracking link',
    ids: [o.view.status.svcOrderId ?? o.view.status.orderNumber],
    confirms: (shown) => {
      const found = own(shown);
      if (status !== undefined && !reachedStatus(found?.orderStatus, atLeast)) return undefined;
      if (number !== undefined && found?.trackNumber !== number) return undefined;
      return found;
    },
  });
  const found = answer.confirmed ? answer.value : own(answer.shown);
  if (answer.confirmed) o.supplier.shows(found);
  else o.supplier.pushNotConfirmed(claim, answer.reason, found);
  o.supplier.trackingShown(found);
}

/**
 * A webhook said the supplier ended the order: true once the supplier's own view shows it ended;
 * otherwise the push is noted and forgotten, and the order goes on following the supplier.
 */
async function confirmEnded(o: Order, acts: Activities, status: string): Promise<boolean> {
  const own = (shown: readonly OrderSnapshot[]) => ownOrder(o, shown);
  const answer = await supplierConfirms(o.waits, acts, {
    claim: status,
    ids: [o.view.status.svcOrderId ?? o.view.status.orderNumber],
    confirms: (shown) => {
      const found = own(shown);
      return endedStatus(found?.orderStatus) ? found : undefined;
    },
  });
  if (answer.confirmed) {
    o.supplier.shows(answer.value);
    return true;
  }
  o.supplier.pushNotConfirmed(status, answer.reason, own(answer.shown));
  return false;
}

/**
 * Before an order delivered without proof completes: whether the supplier's own answers show it
 * DELIVERED. When only a webhook said so, it is looked up; not shown, the order stops at
 * NEEDS_ATTENTION (resume looks again, news from the supplier ends the stop) and false.
 */
async function deliveryShown(o: Order, acts: Activities): Promise<boolean> {
  const shown =
    !o.supplier.statusFromPush && reachedStatus(o.supplier.news.orderStatus, OrderStatus.Delivered);
  if (shown || !has(Patch.PushesConfirmed)) return true;
  const own = (answer: readonly OrderSnapshot[]) => ownOrder(o, answer);
  const answer = await supplierConfirms(o.waits, acts, {
    claim: OrderStatus.Delivered,
    ids: [o.view.status.svcOrderId ?? o.view.status.orderNumber],
    confirms: (found) => {
      const mine = own(found);
      return reachedStatus(mine?.orderStatus, OrderStatus.Delivered) ? mine : undefined;
    },
  });
  if (answer.confirmed) {
    o.supplier.shows(answer.value);
    return true;
  }
  const seen = o.supplier.version;
  o.supplier.pushNotConfirmed(OrderStatus.Delivered, answer.reason, own(answer.shown));
  await o.waits.needsAttention(
    { step: 'delivery', message: `a webhook said DELIVERED: ${answer.reason}` },
    'resume to look at the supplier again, or open a dispute',
    { until: () => o.supplier.version !== seen },
  );
  return false;
}

/**
 * The store cancelled an order the supplier was paid for: never silently. A person refunds the
 * customer in the store and asks the supplier for the money (a dispute once it ships, or the
 * supplier's support before); resume goes on following the parcel.
 */
async function storeCancelledAfterPayment(o: Order, reason: string): Promise<void> {
  o.storeSide.cancelRaised();
  const before = o.view.stage;
  o.view.enter(Stage.NEEDS_ATTENTION, reason);
  o.view.failed({ step: 'storeCancelled', message: `${reason} after the supplier was paid` });
  for (;;) {
    const action = await o.waits.at(
      Stage.NEEDS_ATTENTION,
      `refund the customer in the store; for the supplier's money open a dispute (dropflow dispute open ${o.view.status.orderNumber} --reason … --expect refund); then resume to go on following the order`,
      ['resume'],
    );
    if (action === undefined) continue;
    o.actions.answer(action, 'following the supplier again');
    o.view.enter(before, 'resumed after the store cancelled it');
    return;
  }
}
