/**
 * A Shopify order as its webhooks (`orders/create`, `orders/paid`, `orders/updated`,
 * `orders/cancelled`) and the REST Admin API carry it (the `Order` resource), read into
 * StoreOrderFacts. Only the fields dropflow uses are read; the others are ignored, so a new field
 * of a later API version changes nothing.
 */
import { z } from 'zod';

import { StoreOrderId, type StoreOrderFacts } from './storeOrder.js';

const money = z.union([z.string(), z.number()]).transform(Number).pipe(z.number().min(0));
const id = z.union([z.number().int(), z.string().min(1)]).transform(String);
const text = z.string().nullish();

const Address = z.looseObject({
  name: text,
  first_name: text,
  last_name: text,
  address1: text,
  address2: text,
  city: text,
  province: text,
  province_code: text,
  country: text,
  country_code: text,
  zip: text,
  phone: text,
});

const LineItem = z.looseObject({
  id,
  sku: text,
  quantity: z.number().int().min(0),
  /** What is left to fulfil after edits and refunds (newer API versions). */
  current_quantity: z.number().int().min(0).nullish(),
  price: money.nullish(),
  total_discount: money.nullish(),
  product_id: id.nullish(),
  variant_id: id.nullish(),
  title: text,
  requires_shipping: z.boolean().nullish(),
});

export const ShopifyOrder = z.looseObject({
  id: StoreOrderId,
  name: z.string().min(1),
  email: text,
  phone: text,
  currency: z.string().min(3).max(3),
  financial_status: text,
  cancelled_at: text,
  cancel_reason: text,
  updated_at: text,
  shipping_address: Address.nullish(),
  line_items: z.array(LineItem),
  shipping_lines: z.array(z.looseObject({ title: text, code: text })).nullish(),
});
export type ShopifyOrder = z.infer<typeof ShopifyOrder>;

/** Shopify's financial statuses that mean the store has the money. */
const PAID = new Set(['paid', 'partially_refunded']);

export function shopifyFacts(order: ShopifyOrder): StoreOrderFacts {
  const a = order.shipping_address ?? {};
  const name = a.name ?? [a.first_name, a.last_name].filter(Boolean).join(' ');
  const lines = order.line_items
    .filter((l) => l.requires_shipping !== false)
    .map((l) => ({ ...l, left: l.current_quantity ?? l.quantity }))
    .filter((l) => l.left > 0);
  return {
    orderId: order.id,
    orderName: order.name,
    paid: PAID.has(order.financial_status ?? ''),
    cancelled: order.cancelled_at !== null && order.cancelled_at !== undefined,
    ...(order.cancel_reason != null && { cancelReason: order.cancel_reason }),
    ...(order.updated_at != null && { updatedAt: order.updated_at }),
    currency: order.currency,
    customerName: name,
    address1: a.address1 ?? '',
    ...(a.address2 != null && { address2: a.address2 }),
    city: a.city ?? '',
    province: a.province ?? a.province_code ?? '',
    countryCode: a.country_code ?? '',
    country: a.country ?? '',
    ...(a.zip != null && { zip: a.zip }),
    ...((a.phone ?? order.phone) != null && { phone: (a.phone ?? order.phone)! }),
    ...(order.email != null && { email: order.email }),
    lines: lines.map((l) => ({
      storeLineId: l.id,
      ...(l.sku != null && { sku: l.sku }),
      quantity: l.left,
      ...(l.price != null && {
        unitPrice: round2(l.price - (l.total_discount ?? 0) / Math.max(l.quantity, 1)),
      }),
      ...(l.product_id != null && { productId: l.product_id }),
      ...(l.variant_id != null && { variantId: l.variant_id }),
      ...(l.title != null && { title: l.title }),
    })),
    ...(order.shipping_lines?.[0] !== undefined && {
      shipping: order.shipping_lines[0].code ?? order.shipping_lines[0].title ?? '',
    }),
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;
