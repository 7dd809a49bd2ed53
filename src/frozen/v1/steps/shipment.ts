/**
 * After payment: the waybill (flow A), then following the supplier's news — webhooks and the
 * tracking sweeper — through SHIPPED and DELIVERED to proof of delivery and COMPLETED.
 */
import { condition } from '@temporalio/workflow';
import type { WaybillInput } from '../../../order/contract.js';
import { Stage } from '../../common/contracts.js';
import { FailureType, SupplierCode } from '../../common/supplier.js';
import type { Activities } from '../activities.js';
import { failureInfo, isBusiness, supplierFailure } from '../failures.js';
import type { FrozenOrderV1 } from '../order.js';
import { reached } from './lookup.js';
import { needsAttention, waitAt } from './wait.js';

/** Flow A: the warehouse starts work only once it has the waybill. */
export async function uploadWaybill(o: FrozenOrderV1, acts: Activities): Promise<void> {
  let waybill: WaybillInput | undefined = o.input.fulfillment.waybill;
  for (;;) {
    if (waybill === undefined) {
      const action = await waitAt(
        o,
        Stage.AWAITING_WAYBILL,
        'provideWaybill (carrier, tracking number, label file)',
        ['provideWaybill'],
      );
      if (!action) continue;
      waybill = action.input as WaybillInput;
      o.answer(action, 'uploading the waybill');
    }
    try {
      await acts.supplier.uploadWaybillInfo({ svcOrderId: o.status.svcOrderId!, waybill });
      o.note(`waybill uploaded (${waybill.carrier} ${waybill.trackNumber})`);
      return;
    } catch (err) {
      const f = supplierFailure(err);
      if (
        f &&
        (isBusiness(f, SupplierCode.CarrierNotSupported) || f.type === FailureType.InvalidRequest)
      ) {
        // A waybill the warehouse cannot take: ask for another one.
        o.status.error = failureInfo('uploadWaybillInfo', f);
        waybill = undefined;
        continue;
      }
      await needsAttention(o, 'uploadWaybillInfo', err);
    }
  }
}

/** Follows the order to COMPLETED (or CANCELLED by the supplier). */
export async function followDelivery(o: FrozenOrderV1): Promise<void> {
  o.enter(Stage.AWAITING_SHIPMENT);
  const proofWaitMs = o.input.fulfillment.proofOfDeliveryWaitHours * 3_600_000;
  /** When the wait for proof ends: set once, on delivery, whatever news arrives after. */
  let proofDeadline: number | undefined;
  for (;;) {
    const seen = o.newsVersion;
    const s = o.news.orderStatus;
    copyTracking(o);
    if (s === 'CANCELLED' || s === 'CLOSED') {
      o.enter(Stage.CANCELLED, `the supplier reports the order ${s}`);
      return;
    }
    if (reached(s, 'SHIPPED') && o.stage === Stage.AWAITING_SHIPMENT) o.enter(Stage.SHIPPED);
    if (reached(s, 'DELIVERED') && o.stage !== Stage.DELIVERED) {
      o.enter(Stage.DELIVERED);
      proofDeadline = new Date().getTime() + proofWaitMs;
    }
    if (o.stage === Stage.DELIVERED && proofDeadline !== undefined) {
      if ((o.news.proofOfDelivery?.length ?? 0) > 0) {
        o.status.proofOfDelivery = o.news.proofOfDelivery;
        o.enter(Stage.COMPLETED, 'proof of delivery received');
        return;
      }
      const left = Math.max(0, proofDeadline - new Date().getTime());
      const arrived = await condition(() => o.newsVersion !== seen, left);
      if (!arrived) {
        o.enter(
          Stage.COMPLETED,
          `delivered; no proof of delivery after ${o.input.fulfillment.proofOfDeliveryWaitHours} h`,
        );
        return;
      }
      continue;
    }
    await condition(() => o.newsVersion !== seen);
  }
}

function copyTracking(o: FrozenOrderV1): void {
  const n = o.news;
  if (n.trackNumber !== undefined) o.status.trackNumber = n.trackNumber;
  if (n.trackingUrl !== undefined) o.status.trackingUrl = n.trackingUrl;
  if (n.trackingEvents !== undefined) o.status.trackingEvents = n.trackingEvents;
  if (n.logisticName !== undefined) o.status.logisticName = n.logisticName;
}
