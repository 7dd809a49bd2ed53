/**
 * A split order, followed parcel by parcel: a split claim (ORDERSPLIT, or news under a code the
 * order does not know) settled by one look-up of every code involved, then each parcel to its
 * delivery. The order is SHIPPED with its first parcel, DELIVERED once every parcel is delivered or
 * cancelled, COMPLETED with the proofs of delivery (or after the wait for them), as an unsplit
 * order is. The look-up is the same for every claim, whenever it arrives and however often.
 */

import { Stage, type StaleNews } from '../contract.js';
import { Patch } from '../../durable/versions.js';
import { endedStatus, reachedStatus, type OrderStatus } from '../../supplier/api/constants.js';
import { StoreEventType } from '../../storeEvents/contract.js';
import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import { storeParcel, type ParcelChange, type ParcelFacts } from '../parcels.js';
import { aliasNews, judgeSplit, lookUpKeys, type KnownParcel } from '../splitCheck.js';
import { supplierConfirms } from './confirmNews.js';
import type { OrderSnapshot } from '../lookupActivities.js';
import { flaggedStale, STALE_STAGES } from './stale.js';
import { has } from '../../durable/patches.js';

/** The parcels that may split now: the open ones, or the order itself while unsplit. */
function openParcels(o: Order): KnownParcel[] {
  if (!o.parcels.split) return o.view.status.svcOrderId === undefined ? [] : [o.delivery.whole()];
  return o.parcels.leaves.filter((p) => o.parcels.openCodes.includes(p.code));
}

/**
 * Settles the split claims heard so far with the one confirming look-up (`supplierConfirms`: the
 * open parcels, the codes claimed and the order number, again while the supplier's view may
 * trail): a confirmed split turns its parcel into the children (told to the store); codes that
 * are other names of a parcel hand their news to it; children that do not add up to their parcel,
 * or a claim the supplier keeps not showing, stop the order at NEEDS_ATTENTION with both lists
 * until resumed (which looks again).
 */
export async function settleSplits(o: Order, acts: Activities): Promise<void> {
  while (o.parcels.unsettled && o.view.status.svcOrderId !== undefined) {
    const claims = o.parcels.takeClaims();
    const open = openParcels(o);
    const known = o.parcels.split ? o.parcels.view.map((p) => p.code) : [o.view.status.svcOrderId];
    const verdict = (found: readonly OrderSnapshot[]) => {
      const v = judgeSplit(o.view.status.orderNumber, open, known, claims, found);
      return v.kind === 'unconfirmed' ? undefined : v;
    };
    const looked = await supplierConfirms(o.waits, acts, {
      claim: `split into ${[...new Set(claims.flatMap((c) => c.codes))].join(', ')}`,
      ids: lookUpKeys(open, claims, o.view.status.orderNumber),
      confirms: verdict,
    });
    for (const news of aliasNews(claims, looked.shown, known)) {
      o.supplier.hear({ ...news, messageId: `${news.messageId}:as-${news.svcOrderId}` });
    }
    const v = looked.confirmed ? looked.value : undefined;
    if (v?.kind === 'none') continue;
    if (v?.kind === 'split') {
      o.parcels.splitInto(v.parent, v.children);
      o.view.note(
        `split by the supplier: ${v.parent.code} into ${v.children.map((c) => c.code).join(', ')}`,
      );
      o.notices.parcel(StoreEventType.OrderSplit, {
        parentCode: v.parent.code,
        parcels: v.children.map((c) => storeParcel({ code: c.code, lines: c.lines })),
      });
      continue;
    }
    for (const claim of claims) o.parcels.claimed(claim);
    const unconfirmed = judgeSplit(o.view.status.orderNumber, open, known, claims, looked.shown);
    const why =
      v?.kind === 'mismatch'
        ? v.why
        : `${'why' in unconfirmed ? unconfirmed.why : ''}${looked.confirmed ? '' : ` (${looked.reason})`}`;
    await o.waits.needsAttention(
      { step: 'orderSplit', message: why },
      'check the split at the supplier; resume to look it up again',
    );
  }
}

/** Whether the supplier shows a parcel at least where a webhook said it is. */
function shows(found: OrderSnapshot | undefined, said: ParcelFacts): boolean {
  if (found === undefined) return false;
  const status = said.orderStatus;
  if (status !== undefined) {
    const reached = endedStatus(status)
      ? endedStatus(found.orderStatus)
      : reachedStatus(found.orderStatus, status as OrderStatus);
    if (!reached) return false;
  }
  return said.trackNumber === undefined || found.trackNumber === said.trackNumber;
}

/**
 * What webhooks said of parcels (shipped, delivered, cancelled, a tracking number or link) moves
 * them, and reaches the store, only as the supplier's own order query shows it: looked up once
 * (again while its view may trail), and the supplier's answer taken instead of the push's.
 */
async function confirmParcelNews(o: Order, acts: Activities): Promise<void> {
  const said = o.parcels.takePushed();
  const claim = said
    .map(([code, f]) => {
      const what = [f.orderStatus, f.trackNumber !== undefined && `tracking ${f.trackNumber}`];
      return `${code} ${what.filter(Boolean).join(' with ') || 'tracking'}`;
    })
    .join('; ');
  const find = (shown: readonly OrderSnapshot[], code: string) =>
    shown.find((s) => s.svcOrderId === code || s.svcOrderCode === code);
  const answer = await supplierConfirms(o.waits, acts, {
    claim,
    ids: said.map(([code]) => code),
    confirms: (shown) =>
      said.every(([code, f]) => shows(find(shown, code), f)) ? true : undefined,
  });
  if (!answer.confirmed) o.view.note(`a webhook said ${claim}; not acted on: ${answer.reason}`);
  o.parcels.pushedShown(
    said.map(([code]) => code),
    answer.shown,
  );
}

/** What one parcel's change tells the store and does to the order. */
function applied(o: Order, change: ParcelChange): void {
  const { kind, parcel } = change;
  if (kind === 'cancelled') {
    o.view.note(`parcel ${parcel.code} cancelled by the supplier`);
    return;
  }
  if (kind === 'delivered') {
    o.view.note(`parcel ${parcel.code} delivered`);
    return;
  }
  o.delivery.parcelShipped();
  o.notices.parcel(StoreEventType.OrderShipped, {
    parcel: storeParcel(
      parcel,
      o.current.input.fulfillment.waybill?.carrier ?? parcel.logisticName,
    ),
    ...(parcel.trackNumber !== undefined && { trackNumber: parcel.trackNumber }),
    ...(parcel.trackingUrl !== undefined && { trackingUrl: parcel.trackingUrl }),
    ...(parcel.logisticName !== undefined && { logisticName: parcel.logisticName }),
  });
}

/**
 * Follows a split order to COMPLETED: each parcel's news moves it on; the order is DELIVERED when
 * every parcel is delivered or cancelled (CANCELLED when all were cancelled), then waits up to
 * `proofWaitMs` for every delivered parcel's proof of delivery. New claims are settled on the way.
 */
export async function followParcels(
  o: Order,
  acts: Activities,
  proofWaitMs: number,
): Promise<void> {
  let proofDeadline: number | undefined;
  let staleSeen: StaleNews | undefined = o.supplier.news.stale;
  for (;;) {
    const seen = o.supplier.version;
    if (o.parcels.unsettled) await settleSplits(o, acts);
    if (o.parcels.anyPushed) {
      if (has(Patch.ShippingConfirmed)) await confirmParcelNews(o, acts);
      else o.parcels.trustPushed();
    }
    for (const change of o.parcels.advance()) applied(o, change);
    if (o.parcels.settled && o.parcels.delivered.length === 0) {
      o.cancelled('the supplier cancelled every parcel', 'supplier');
      return;
    }
    if (o.parcels.settled && o.view.stage !== Stage.DELIVERED) {
      o.delivery.delivered();
      proofDeadline = new Date().getTime() + proofWaitMs;
    }
    if (proofDeadline !== undefined) {
      if (o.parcels.proofComplete) {
        o.delivery.proofOfDeliveryReceived(
          o.parcels.delivered.flatMap((p) => p.proofOfDelivery ?? []),
        );
        return;
      }
      const left = Math.max(0, proofDeadline - new Date().getTime());
      if (!(await o.supplier.waitForNews(seen, left))) {
        o.delivery.completedWithoutProof(
          `delivered; not every parcel's proof of delivery after ${o.current.input.fulfillment.proofOfDeliveryWaitHours} h`,
        );
        return;
      }
      continue;
    }
    const stale = o.supplier.news.stale;
    if (stale !== undefined && stale !== staleSeen && STALE_STAGES.includes(o.view.stage)) {
      staleSeen = stale;
      await flaggedStale(o, stale);
      continue;
    }
    if (o.supplier.version === seen) await o.supplier.waitForNews(seen);
  }
}
