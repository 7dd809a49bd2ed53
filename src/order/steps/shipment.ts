/**
 * After payment: the waybill (flow A), then following the supplier's news — webhooks and the
 * tracking sweeper — through SHIPPED and DELIVERED to proof of delivery and COMPLETED.
 */
import { patched } from '@temporalio/workflow';
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
import { lookUpOrder } from './lookup.js';
import { supplierStep, type Seen } from '../../durable/supplierStep.js';
import { followParcels, settleSplits } from './parcels.js';
import { flaggedStale, STALE_STAGES } from './stale.js';

/** Flow A: the warehouse starts work only once it has the waybill. */
export async function uploadWaybill(o: Order, acts: Activities): Promise<void> {
  let waybill: WaybillInput | undefined = o.input.fulfillment.waybill;
  for (;;) {
    if (waybill === undefined) {
      const action = await o.waitAt(
        Stage.AWAITING_WAYBILL,
        'provideWaybill (carrier, tracking number, label file)',
        ['provideWaybill'],
      );
      if (!action) continue;
      waybill = action.input as WaybillInput;
      o.answer(action, 'uploading the waybill');
    }
    const label = waybill;
    const result = await supplierStep(o, {
      name: 'uploadWaybillInfo',
      send: () =>
        acts.supplierOnce.uploadWaybillInfo({ svcOrderId: o.status.svcOrderId!, waybill: label }),
      lookUp: () => waybillSeen(o, acts, label),
      // Refused as if the order had moved on: an upload whose answer was lost may have done it.
      doubtful: (f) => isBusiness(f, SupplierCode.OrderStatusChanged),
      expected: (f) =>
        isBusiness(f, SupplierCode.CarrierNotSupported) || f.type === FailureType.InvalidRequest,
    });
    if (result.ok) {
      o.note(
        `waybill uploaded (${label.carrier} ${label.trackNumber})${result.found ? `: ${result.note ?? 'found'}` : ''}`,
      );
      return;
    }
    // A waybill the warehouse cannot take: ask for another one.
    o.enter(Stage.AWAITING_WAYBILL);
    o.failed(failureInfo('uploadWaybillInfo', result.failure));
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
export async function followDelivery(o: Order): Promise<void> {
  o.enter(Stage.AWAITING_SHIPMENT);
  const proofWaitMs = o.input.fulfillment.proofOfDeliveryWaitHours * 3_600_000;
  /** When the wait for proof ends: set once, on delivery, whatever news arrives after. */
  let proofDeadline: number | undefined;
  /** The last `stale` news acted on (a new message brings a new object). */
  let staleSeen: StaleNews | undefined;
  let staleFlags: boolean | undefined;
  for (;;) {
    if (o.parcels.unsettled) await settleSplits(o, activities());
    if (o.parcels.split) return followParcels(o, activities(), proofWaitMs);
    const seen = o.newsVersion;
    const s = o.news.orderStatus;
    o.trackingHeard();
    if (endedStatus(s)) {
      o.cancelled(`the supplier reports the order ${s}`, 'supplier');
      return;
    }
    if (reachedStatus(s, OrderStatus.Shipped) && o.stage === Stage.AWAITING_SHIPMENT) {
      o.shipped();
    }
    if (reachedStatus(s, OrderStatus.Delivered) && o.stage !== Stage.DELIVERED) {
      o.delivered();
      proofDeadline = new Date().getTime() + proofWaitMs;
    }
    if (o.stage === Stage.DELIVERED && proofDeadline !== undefined) {
      if ((o.news.proofOfDelivery?.length ?? 0) > 0) {
        o.proofOfDeliveryReceived(o.news.proofOfDelivery!);
        return;
      }
      const left = Math.max(0, proofDeadline - new Date().getTime());
      const arrived = await o.waitForNews(seen, left);
      if (!arrived) {
        o.completedWithoutProof(
          `delivered; no proof of delivery after ${o.input.fulfillment.proofOfDeliveryWaitHours} h`,
        );
        return;
      }
      continue;
    }
    const stale = o.news.stale;
    if (stale !== undefined && stale !== staleSeen && STALE_STAGES.includes(o.stage)) {
      staleSeen = stale;
      staleFlags ??= patched(Patch.TrackingStaleFlags);
      if (staleFlags) {
        await flaggedStale(o, stale);
        continue;
      }
    }
    await o.waitForNews(seen);
  }
}
