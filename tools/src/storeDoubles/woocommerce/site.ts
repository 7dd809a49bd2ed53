/**
 * The data of the WooCommerce double: orders as the REST API v3 shows them (status, line items,
 * addresses, meta data), their notes, and the shipment trackings of the Shipment Tracking
 * extension when the site has it.
 */
export type WooStatus =
  'pending' | 'processing' | 'on-hold' | 'completed' | 'cancelled' | 'refunded' | 'failed';

export interface WooNote {
  id: number;
  author: string;
  date_created: string;
  note: string;
  customer_note: boolean;
}

export interface WooTracking {
  tracking_id: string;
  tracking_provider: string;
  tracking_link: string;
  tracking_number: string;
  date_shipped: string;
}

export interface WooOrder {
  id: number;
  number: string;
  order_key: string;
  status: WooStatus;
  currency: string;
  /** The site's local time and UTC (the double's site runs on UTC): `YYYY-MM-DDTHH:MM:SS`. */
  date_created: string;
  date_created_gmt: string;
  date_modified: string;
  date_modified_gmt: string;
  date_paid: string | null;
  date_paid_gmt: string | null;
  total: string;
  shipping_total: string;
  billing: Record<string, string>;
  shipping: Record<string, string>;
  line_items: {
    id: number;
    name: string;
    product_id: number;
    variation_id: number;
    quantity: number;
    sku: string;
    price: number;
    total: string;
  }[];
  shipping_lines: { id: number; method_title: string; method_id: string; total: string }[];
  meta_data: { id: number; key: string; value: unknown }[];
}

export interface NewWooOrder {
  lines: {
    sku: string;
    name?: string;
    quantity: number;
    price: string;
    productId?: number;
    variationId?: number;
  }[];
  paid?: boolean;
  shipping?: Record<string, string>;
  email?: string;
  shippingMethod?: { title: string; id?: string; total?: string };
}

const DEFAULT_SHIPPING = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  company: '',
  address_1: '12 Example Street',
  address_2: '',
  city: 'Springfield',
  state: 'IL',
  postcode: '62701',
  country: 'US',
  phone: '+12175550100',
};

/** The site's clock as WooCommerce shows dates: seconds, no zone (the double's site runs on UTC). */
export function siteTime(at = new Date()): string {
  return at.toISOString().slice(0, 19);
}

export class WooSite {
  readonly orders = new Map<number, WooOrder>();
  readonly notes = new Map<number, WooNote[]>();
  readonly trackings = new Map<number, WooTracking[]>();
  /** When each tracking was added (ms), by tracking_id: the extension does not say it to a second. */
  readonly trackingAddedAt = new Map<string, number>();
  private nextId = 100;
  private nextItem = 1;

  createOrder(spec: NewWooOrder): WooOrder {
    const id = this.nextId++;
    const shippingTotal = spec.shippingMethod?.total ?? '4.90';
    const items = spec.lines.map((l) => ({
      id: this.nextItem++,
      name: l.name ?? l.sku,
      product_id: l.productId ?? 10 + this.nextItem,
      variation_id: l.variationId ?? 0,
      quantity: l.quantity,
      sku: l.sku,
      price: Number(l.price),
      total: (Number(l.price) * l.quantity).toFixed(2),
    }));
    const total = items.reduce((s, i) => s + Number(i.total), 0) + Number(shippingTotal);
    const now = siteTime();
    const order: WooOrder = {
      id,
      number: String(id),
      order_key: `wc_order_${id.toString(36)}double`,
      status: spec.paid === false ? 'pending' : 'processing',
      currency: 'USD',
      date_created: now,
      date_created_gmt: now,
      date_modified: now,
      date_modified_gmt: now,
      date_paid: spec.paid === false ? null : now,
      date_paid_gmt: spec.paid === false ? null : now,
      total: total.toFixed(2),
      shipping_total: shippingTotal,
      billing: { ...DEFAULT_SHIPPING, email: spec.email ?? 'ada@example.com' },
      shipping: spec.shipping ?? DEFAULT_SHIPPING,
      line_items: items,
      shipping_lines: [
        {
          id: this.nextItem++,
          method_title: spec.shippingMethod?.title ?? 'Flat rate',
          method_id: spec.shippingMethod?.id ?? 'flat_rate',
          total: shippingTotal,
        },
      ],
      meta_data: [],
    };
    this.orders.set(id, order);
    return order;
  }

  addNote(orderId: number, note: string, customerNote: boolean): WooNote {
    const list = this.notes.get(orderId) ?? [];
    const made = {
      id: this.nextItem++,
      author: 'system',
      date_created: siteTime(),
      note,
      customer_note: customerNote,
    };
    list.unshift(made);
    this.notes.set(orderId, list);
    return made;
  }

  addTracking(orderId: number, t: Omit<WooTracking, 'tracking_id'>): WooTracking {
    const list = this.trackings.get(orderId) ?? [];
    const made = { ...t, tracking_id: (this.nextItem++).toString(16).padStart(32, '0') };
    list.push(made);
    this.trackings.set(orderId, list);
    this.trackingAddedAt.set(made.tracking_id, Date.now());
    return made;
  }

  /** A status change, as WooCommerce records it (paid when it becomes processing or completed). */
  setStatus(order: WooOrder, status: WooStatus): void {
    order.status = status;
    if ((status === 'processing' || status === 'completed') && order.date_paid === null) {
      order.date_paid = order.date_paid_gmt = siteTime();
    }
    WooSite.touch(order);
  }

  /** Every change of an order moves its date_modified (what `modified_after` filters by). */
  static touch(order: WooOrder): void {
    order.date_modified = order.date_modified_gmt = siteTime();
  }

  /** PUT orders/<id>: status and meta data (a meta entry with a known key replaces it). */
  update(
    order: WooOrder,
    body: { status?: WooStatus; meta_data?: { key: string; value: unknown }[] },
  ): void {
    if (body.status !== undefined) this.setStatus(order, body.status);
    WooSite.touch(order);
    for (const m of body.meta_data ?? []) {
      const existing = order.meta_data.find((x) => x.key === m.key);
      if (existing !== undefined) existing.value = m.value;
      else order.meta_data.push({ id: this.nextItem++, key: m.key, value: m.value });
    }
  }
}
