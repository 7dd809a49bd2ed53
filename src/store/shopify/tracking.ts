/**
 * Tracking written to a Shopify order, never twice: every write first reads the order's
 * fulfillments and writes only what is not there yet — a fulfillment per parcel (found again by
 * its tracking number, or by its lines when it has none), a DELIVERED fulfillment event per
 * fulfillment, a tag, a line of the order note. A retry after a lost answer finds what the lost
 * call did and stops there.
 */
import { StoreApiError, StoreFailure } from '../apiError.js';
import { NOTE_MARK, type StoreOrderTarget, type StoreParcel } from '../parcel.js';
import type { ShopifyAdmin } from './admin.js';
import {
  FULFILLMENT_CREATE,
  FULFILLMENT_EVENT_CREATE,
  ORDER_FULFILLMENT_STATE,
  ORDER_NOTE,
  TAGS_ADD,
  TRACKING_UPDATE,
  type OrderFulfillmentState,
  type ShopFulfillment,
  type UserErrors,
} from './queries.js';

type ShopOrder = NonNullable<OrderFulfillmentState['order']>;

export const orderGid = (id: string): string =>
  id.startsWith('gid://') ? id : `gid://shopify/Order/${id}`;
const lineGid = (id: string): string =>
  id.startsWith('gid://') ? id : `gid://shopify/LineItem/${id}`;

/** What a fulfillment carries, by line item gid. */
function linesOf(f: ShopFulfillment): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of f.fulfillmentLineItems.nodes)
    m.set(n.lineItem.id, (m.get(n.lineItem.id) ?? 0) + (n.quantity ?? 0));
  return m;
}

function sameLines(f: ShopFulfillment, parcel: StoreParcel): boolean {
  const have = linesOf(f);
  const want = parcel.lines.filter((l) => l.quantity > 0);
  return (
    have.size === want.length && want.every((l) => have.get(lineGid(l.storeLineId)) === l.quantity)
  );
}

/** The parcel's fulfillment, if the shop has one: by tracking number, else by its lines. */
export function fulfillmentOf(order: ShopOrder, parcel: StoreParcel): ShopFulfillment | undefined {
  const live = order.fulfillments.filter((f) => f.status !== 'CANCELLED' && f.status !== 'ERROR');
  if (parcel.trackNumber !== undefined) {
    const byNumber = live.find((f) => f.trackingInfo.some((t) => t.number === parcel.trackNumber));
    if (byNumber !== undefined) return byNumber;
  }
  return live.find((f) => sameLines(f, parcel));
}

export class ShopifyTracking {
  constructor(
    private readonly admin: ShopifyAdmin,
    private readonly target: StoreOrderTarget,
  ) {}

  private async order(): Promise<ShopOrder> {
    const { data } = await this.admin.graphql<OrderFulfillmentState>(ORDER_FULFILLMENT_STATE, {
      id: orderGid(this.target.orderId),
    });
    if (data.order === null) {
      throw new StoreApiError(
        StoreFailure.NotFound,
        `shopify ${this.admin.host}: order ${this.target.orderName} is not in the shop`,
      );
    }
    return data.order;
  }

  private async mutate(
    doc: string,
    field: string,
    variables: Record<string, unknown>,
  ): Promise<void> {
    const { data } = await this.admin.graphql<Record<string, UserErrors>>(doc, variables);
    const errors = data[field]?.userErrors ?? [];
    if (errors.length > 0) {
      throw new StoreApiError(
        StoreFailure.Rejected,
        `shopify ${this.admin.host}: ${field} on ${this.target.orderName}: ${errors.map((e) => e.message).join('; ')}`,
      );
    }
  }

  /** The parcel left: its fulfillment, made once; a changed tracking number updates it. */
  async shipped(parcel: StoreParcel): Promise<'created' | 'updated' | 'present'> {
    const order = await this.order();
    const existing = fulfillmentOf(order, parcel);
    const tracking = {
      ...(parcel.company !== undefined && { company: parcel.company }),
      ...(parcel.trackNumber !== undefined && { number: parcel.trackNumber }),
      ...(parcel.trackingUrl !== undefined && { url: parcel.trackingUrl }),
    };
    if (existing !== undefined) {
      if (
        parcel.trackNumber === undefined ||
        existing.trackingInfo.some((t) => t.number === parcel.trackNumber)
      )
        return 'present';
      await this.mutate(TRACKING_UPDATE, 'fulfillmentTrackingInfoUpdate', {
        id: existing.id,
        tracking,
        notify: this.target.notifyCustomer,
      });
      return 'updated';
    }
    const groups = this.lineItemsByFulfillmentOrder(order, parcel);
    // Every line already fulfilled, by hand or by another app: nothing left for this parcel.
    if (groups.length === 0) return 'present';
    await this.mutate(FULFILLMENT_CREATE, 'fulfillmentCreate', {
      fulfillment: {
        lineItemsByFulfillmentOrder: groups,
        notifyCustomer: this.target.notifyCustomer,
        ...(Object.keys(tracking).length > 0 && { trackingInfo: tracking }),
      },
    });
    return 'created';
  }

  /** The parcel's lines on the order's open fulfillment orders, up to what remains on each. */
  private lineItemsByFulfillmentOrder(order: ShopOrder, parcel: StoreParcel) {
    const want = new Map(parcel.lines.map((l) => [lineGid(l.storeLineId), l.quantity]));
    const groups: {
      fulfillmentOrderId: string;
      fulfillmentOrderLineItems: { id: string; quantity: number }[];
    }[] = [];
    for (const fo of order.fulfillmentOrders.nodes) {
      if (fo.status === 'CLOSED' || fo.status === 'CANCELLED' || fo.status === 'INCOMPLETE')
        continue;
      const items: { id: string; quantity: number }[] = [];
      for (const li of fo.lineItems.nodes) {
        const left = want.get(li.lineItem.id) ?? 0;
        const quantity = Math.min(left, li.remainingQuantity);
        if (quantity <= 0) continue;
        items.push({ id: li.id, quantity });
        want.set(li.lineItem.id, left - quantity);
      }
      if (items.length > 0)
        groups.push({ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: items });
    }
    return groups;
  }

  /** The parcels arrived: a DELIVERED event on each one's fulfillment that has none yet. */
  async delivered(parcels: StoreParcel[], deliveredAt: string): Promise<number> {
    const order = await this.order();
    let written = 0;
    for (const parcel of parcels) {
      const f = fulfillmentOf(order, parcel);
      if (f === undefined || f.events.nodes.some((e) => e.status === 'DELIVERED')) continue;
      await this.mutate(FULFILLMENT_EVENT_CREATE, 'fulfillmentEventCreate', {
        event: { fulfillmentId: f.id, status: 'DELIVERED', happenedAt: deliveredAt },
      });
      written += 1;
    }
    return written;
  }

  /** A line in the order's note (kept once) and, when given, a tag. */
  async note(line: string, tag?: string): Promise<void> {
    const order = await this.order();
    if (tag !== undefined && !order.tags.includes(tag))
      await this.mutate(TAGS_ADD, 'tagsAdd', { id: order.id, tags: [tag] });
    const text = `${NOTE_MARK} ${line}`;
    const note = order.note ?? '';
    if (note.split('\n').includes(text)) return;
    await this.mutate(ORDER_NOTE, 'orderUpdate', {
      input: { id: order.id, note: note === '' ? text : `${note}\n${text}` },
    });
  }
}
