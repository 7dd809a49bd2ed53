/**
 * The data of the Shopify double: orders with their line items, the fulfillment orders Shopify
 * makes for each order at creation, fulfillments with tracking, fulfillment events, tags and the
 * order note. The rules are the documented ones that matter to a fulfilment app: a fulfillment
 * takes at most the remaining quantity of each fulfillment order line item, a closed or cancelled
 * fulfillment order takes none, and every fulfillment belongs to one order.
 */
export const gid = (type: string, id: number): string => `gid://shopify/${type}/${id}`;

/** The number at the end of a gid, or undefined when `value` is not a gid of `type`. */
export function idOf(type: string, value: string): number | undefined {
  const match = new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(value);
  return match === null ? undefined : Number(match[1]);
}

export interface ShopLineItem {
  id: number;
  sku: string | null;
  title: string;
  quantity: number;
  price: string;
  variantId: number;
}

export interface ShopFulfillmentOrderLine {
  id: number;
  lineItemId: number;
  totalQuantity: number;
  remainingQuantity: number;
}

export interface ShopFulfillmentOrder {
  id: number;
  status: 'OPEN' | 'IN_PROGRESS' | 'CLOSED' | 'CANCELLED';
  lineItems: ShopFulfillmentOrderLine[];
}

export interface ShopTracking {
  company: string | null;
  number: string | null;
  url: string | null;
}

export interface ShopFulfillmentEvent {
  id: number;
  status: string;
  happenedAt: string;
  message: string | null;
}

export interface ShopFulfillment {
  id: number;
  name: string;
  status: 'SUCCESS' | 'CANCELLED';
  createdAt: string;
  notifyCustomer: boolean;
  trackingInfo: ShopTracking[];
  lineItems: { id: number; lineItemId: number; quantity: number }[];
  events: ShopFulfillmentEvent[];
}

export interface ShopOrder {
  id: number;
  name: string;
  createdAt: string;
  email: string;
  currency: string;
  financialStatus: 'pending' | 'paid';
  cancelledAt: string | null;
  cancelReason: string | null;
  note: string | null;
  tags: string[];
  lineItems: ShopLineItem[];
  shippingAddress: Record<string, string | null>;
  shippingLines: { title: string; code: string; price: string }[];
  fulfillmentOrders: ShopFulfillmentOrder[];
  fulfillments: ShopFulfillment[];
}

/** What a test or `dropflow dev` asks the shop to sell. */
export interface NewShopOrder {
  lines: {
    sku: string | null;
    title?: string;
    quantity: number;
    price: string;
    variantId?: number;
  }[];
  email?: string;
  shippingAddress?: Record<string, string | null>;
  shippingLine?: { title: string; code?: string; price?: string };
  paid?: boolean;
  currency?: string;
}

export interface UserError {
  field: string[] | null;
  message: string;
}

export interface FulfillmentRequest {
  lineItemsByFulfillmentOrder: {
    fulfillmentOrderId: string;
    fulfillmentOrderLineItems?: { id: string; quantity: number }[] | null;
  }[];
  notifyCustomer?: boolean | null;
  trackingInfo?: { company?: string | null; number?: string | null; url?: string | null } | null;
}

const DEFAULT_ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  address1: '12 Example Street',
  address2: null,
  city: 'Springfield',
  zip: '62701',
  province_code: 'IL',
  country_code: 'US',
  phone: '+12175550100',
};

export class ShopifyShop {
  readonly orders = new Map<number, ShopOrder>();
  private nextId: number;
  private nextNumber = 1001;

  /** `firstId`: where its ids start (a double started again must not reuse an earlier one's). */
  constructor(firstId = 5_000_000_001) {
    this.nextId = firstId;
  }

  private id(): number {
    return this.nextId++;
  }

  createOrder(spec: NewShopOrder): ShopOrder {
    const orderId = this.id();
    const lineItems = spec.lines.map((l, i) => ({
      id: this.id(),
      sku: l.sku,
      title: l.title ?? `Item ${i + 1}`,
      quantity: l.quantity,
      price: l.price,
      variantId: l.variantId ?? this.id(),
    }));
    const order: ShopOrder = {
      id: orderId,
      name: `#${this.nextNumber++}`,
      createdAt: new Date().toISOString(),
      email: spec.email ?? 'ada@example.com',
      currency: spec.currency ?? 'USD',
      financialStatus: spec.paid === false ? 'pending' : 'paid',
      cancelledAt: null,
      cancelReason: null,
      note: null,
      tags: [],
      lineItems,
      shippingAddress: spec.shippingAddress ?? DEFAULT_ADDRESS,
      shippingLines: [
        {
          title: spec.shippingLine?.title ?? 'Standard',
          code: spec.shippingLine?.code ?? 'STANDARD',
          price: spec.shippingLine?.price ?? '4.90',
        },
      ],
      // Shopify makes the fulfillment orders itself: one per location; the double has one.
      fulfillmentOrders: [
        {
          id: this.id(),
          status: 'OPEN',
          lineItems: lineItems.map((li) => ({
            id: this.id(),
            lineItemId: li.id,
            totalQuantity: li.quantity,
            remainingQuantity: li.quantity,
          })),
        },
      ],
      fulfillments: [],
    };
    this.orders.set(orderId, order);
    return order;
  }

  markPaid(orderId: number): ShopOrder | undefined {
    const order = this.orders.get(orderId);
    if (order !== undefined) order.financialStatus = 'paid';
    return order;
  }

  cancel(orderId: number, reason: string): ShopOrder | undefined {
    const order = this.orders.get(orderId);
    if (order === undefined) return undefined;
    order.cancelledAt ??= new Date().toISOString();
    order.cancelReason = reason;
    for (const fo of order.fulfillmentOrders) if (fo.status !== 'CLOSED') fo.status = 'CANCELLED';
    return order;
  }

  fulfillmentOrderOf(foId: number): { order: ShopOrder; fo: ShopFulfillmentOrder } | undefined {
    for (const order of this.orders.values()) {
      const fo = order.fulfillmentOrders.find((f) => f.id === foId);
      if (fo !== undefined) return { order, fo };
    }
    return undefined;
  }

  fulfillmentOf(id: number): { order: ShopOrder; fulfillment: ShopFulfillment } | undefined {
    for (const order of this.orders.values()) {
      const fulfillment = order.fulfillments.find((f) => f.id === id);
      if (fulfillment !== undefined) return { order, fulfillment };
    }
    return undefined;
  }

  /** fulfillmentCreate: checks everything first, then changes the shop. */
  createFulfillment(req: FulfillmentRequest): {
    fulfillment?: ShopFulfillment;
    userErrors: UserError[];
  } {
    const planned = this.plan(req);
    if ('error' in planned) return { userErrors: [planned.error] };
    const { order, takes } = planned;
    const fulfillment: ShopFulfillment = {
      id: this.id(),
      name: `${order.name}-F${order.fulfillments.length + 1}`,
      status: 'SUCCESS',
      createdAt: new Date().toISOString(),
      notifyCustomer: req.notifyCustomer === true,
      trackingInfo:
        req.trackingInfo == null
          ? []
          : [
              {
                company: req.trackingInfo.company ?? null,
                number: req.trackingInfo.number ?? null,
                url: req.trackingInfo.url ?? null,
              },
            ],
      lineItems: takes.map((t) => ({
        id: this.id(),
        lineItemId: t.line.lineItemId,
        quantity: t.quantity,
      })),
      events: [],
    };
    for (const t of takes) t.line.remainingQuantity -= t.quantity;
    for (const fo of order.fulfillmentOrders) {
      if (fo.status === 'CANCELLED') continue;
      const left = fo.lineItems.some((l) => l.remainingQuantity > 0);
      fo.status = left
        ? fo.lineItems.some((l) => l.remainingQuantity < l.totalQuantity)
          ? 'IN_PROGRESS'
          : 'OPEN'
        : 'CLOSED';
    }
    order.fulfillments.push(fulfillment);
    return { fulfillment, userErrors: [] };
  }

  private plan(
    req: FulfillmentRequest,
  ):
    | { order: ShopOrder; takes: { line: ShopFulfillmentOrderLine; quantity: number }[] }
    | { error: UserError } {
    const field = ['fulfillment', 'lineItemsByFulfillmentOrder'];
    if (req.lineItemsByFulfillmentOrder.length === 0) {
      return { error: { field, message: 'Line items by fulfillment order must not be empty.' } };
    }
    let order: ShopOrder | undefined;
    const takes: { line: ShopFulfillmentOrderLine; quantity: number }[] = [];
    for (const group of req.lineItemsByFulfillmentOrder) {
      const foId = idOf('FulfillmentOrder', group.fulfillmentOrderId);
      const found = foId === undefined ? undefined : this.fulfillmentOrderOf(foId);
      if (found === undefined)
        return { error: { field, message: 'Fulfillment order does not exist.' } };
      if (order !== undefined && order !== found.order) {
        return {
          error: { field, message: 'All fulfillment orders must belong to the same order.' },
        };
      }
      order = found.order;
      if (found.fo.status === 'CLOSED' || found.fo.status === 'CANCELLED') {
        return {
          error: {
            field,
            message: `Fulfillment order ${group.fulfillmentOrderId} has an unfulfillable status= ${found.fo.status.toLowerCase()}.`,
          },
        };
      }
      const wanted =
        group.fulfillmentOrderLineItems ??
        found.fo.lineItems.map((l) => ({
          id: gid('FulfillmentOrderLineItem', l.id),
          quantity: l.remainingQuantity,
        }));
      for (const w of wanted) {
        const line = found.fo.lineItems.find((l) => gid('FulfillmentOrderLineItem', l.id) === w.id);
        if (line === undefined)
          return {
            error: { field, message: `Fulfillment order line item ${w.id} does not exist.` },
          };
        if (w.quantity < 1 || w.quantity > line.remainingQuantity) {
          return {
            error: { field, message: `Invalid fulfillment order line item quantity requested.` },
          };
        }
        takes.push({ line, quantity: w.quantity });
      }
    }
    return { order: order!, takes };
  }
}
