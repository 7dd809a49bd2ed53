/**
 * A WooCommerce order as its webhooks (`order.created`, `order.updated`, `order.deleted`) and the
 * REST API v3 (`GET /wp-json/wc/v3/orders`) carry it, read into StoreOrderFacts. Only the fields
 * dropflow uses are read.
 */
import { z } from 'zod';

import { StoreOrderId, type StoreOrderFacts } from './storeOrder.js';

const money = z.union([z.string(), z.number()]).transform(Number).pipe(z.number().min(0));
const id = z.union([z.number().int(), z.string().min(1)]).transform(String);
const text = z.string().nullish();

const Party = z.looseObject({
  first_name: text,
  last_name: text,
  address_1: text,
  address_2: text,
  city: text,
  state: text,
  postcode: text,
  country: text,
  email: text,
  phone: text,
});

export const WooOrder = z.looseObject({
  id: StoreOrderId,
  number: z.union([z.string(), z.number()]).transform(String).nullish(),
  status: z.string(),
  currency: z.string().min(3).max(3),
  date_modified_gmt: text,
  date_paid_gmt: text,
  billing: Party.nullish(),
  shipping: Party.nullish(),
  line_items: z.array(
    z.looseObject({
      id,
      sku: text,
      quantity: z.number().int().min(0),
      total: money.nullish(),
      product_id: id.nullish(),
      variation_id: id.nullish(),
      name: text,
    }),
  ),
  shipping_lines: z.array(z.looseObject({ method_title: text, method_id: text })).nullish(),
});
export type WooOrder = z.infer<typeof WooOrder>;

/** Statuses of an order the store has been paid for and that waits to be fulfilled. */
export const WOO_PAID = new Set(['processing', 'completed']);
/** Statuses of an order the store gave up on. */
export const WOO_CANCELLED = new Set(['cancelled', 'refunded', 'failed', 'trash']);

export function wooFacts(order: WooOrder): StoreOrderFacts {
  const s = order.shipping ?? {};
  const b = order.billing ?? {};
  const ship = (s.address_1 ?? '') !== '' ? s : b;
  const name = [ship.first_name, ship.last_name].filter(Boolean).join(' ');
  return {
    orderId: order.id,
    orderName: `#${order.number ?? order.id}`,
    paid: WOO_PAID.has(order.status),
    cancelled: WOO_CANCELLED.has(order.status),
    ...(WOO_CANCELLED.has(order.status) && { cancelReason: order.status }),
    ...(order.date_modified_gmt != null && { updatedAt: `${order.date_modified_gmt}Z` }),
    currency: order.currency,
    customerName: name,
    address1: ship.address_1 ?? '',
    ...(ship.address_2 != null && { address2: ship.address_2 }),
    city: ship.city ?? '',
    province: ship.state ?? '',
    countryCode: ship.country ?? '',
    country: '',
    ...(ship.postcode != null && { zip: ship.postcode }),
    ...((s.phone ?? b.phone) != null && { phone: (s.phone ?? b.phone)! }),
    ...(b.email != null && { email: b.email }),
    lines: order.line_items
      .filter((l) => l.quantity > 0)
      .map((l) => ({
        storeLineId: l.id,
        ...(l.sku != null && { sku: l.sku }),
        quantity: l.quantity,
        ...(l.total != null && { unitPrice: Math.round((l.total / l.quantity) * 100) / 100 }),
        ...(l.product_id != null && { productId: l.product_id }),
        ...(l.variation_id != null && l.variation_id !== '0' && { variantId: l.variation_id }),
        ...(l.name != null && { title: l.name }),
      })),
    ...(order.shipping_lines?.[0] !== undefined && {
      shipping: order.shipping_lines[0].method_title ?? order.shipping_lines[0].method_id ?? '',
    }),
  };
}
