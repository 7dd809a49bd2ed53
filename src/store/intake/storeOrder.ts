/**
 * A store order as dropflow reads it, whatever the platform (shopifyOrder.ts, wooOrder.ts), and the
 * order document it becomes (docs/orders.md): shipping address and contact, lines and quantities,
 * the sale price of each line (USD stores: the margin guard needs no extra set-up), the shipping
 * line as the logistics policy, and `store`, the reference back to the store order. Lines carry the
 * store's SKU until the order resolves them to supplier variants (order/steps/storeIntake.ts).
 */
import { z } from 'zod';

import type { FieldIssue } from '../../supplier/errors.js';
import { storeOrderNumber, type StoreOrderLine, type StoreOrderRef } from '../contract.js';
import type { StoreConnection } from '../../accounts/contract.js';

/**
 * A store order's id: Shopify's and WooCommerce's are positive integers. Digits only, so that
 * `<connection>-<id>` names that connection's order and no other: an id holding `-` or `:` could
 * name another connection's order, or another account's.
 */
export const StoreOrderId = z
  .union([
    z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    z.string().regex(/^[0-9]{1,20}$/, { error: "must be the platform's numeric order id" }),
  ])
  .transform(String);

export interface StoreOrderFacts {
  orderId: string;
  orderName: string;
  /** The store took the payment. */
  paid: boolean;
  /** The store cancelled the order (or deleted / refunded it before fulfilment). */
  cancelled: boolean;
  cancelReason?: string;
  /** ISO 8601, as the platform says it was made or last changed. */
  updatedAt?: string;
  currency: string;
  customerName: string;
  address1: string;
  address2?: string;
  city: string;
  province: string;
  countryCode: string;
  country: string;
  zip?: string;
  phone?: string;
  email?: string;
  lines: {
    storeLineId: string;
    sku?: string;
    quantity: number;
    /** Per unit, after the line's discounts, in `currency`. */
    unitPrice?: number;
    productId?: string;
    variantId?: string;
    title?: string;
  }[];
  /** The shipping line the customer chose (title or code). */
  shipping?: string;
}

/** Shipping lines whose name asks for speed go the fastest line; all others the cheapest. */
const FAST_SHIPPING = /express|priority|expedited|overnight|next[ -]?day|fast/i;

/** The country name the supplier wants when the store gives only a code. */
function countryName(facts: StoreOrderFacts): string {
  return facts.country !== '' ? facts.country : facts.countryCode;
}

/** A body `sku` for a line still to be resolved: the store SKU, or the store line itself. */
function pendingSku(line: StoreOrderFacts['lines'][number]): string {
  const sku = line.sku?.trim();
  return sku !== undefined && sku !== '' && sku.length <= 50 ? sku : `line-${line.storeLineId}`;
}

export function storeLines(facts: StoreOrderFacts): StoreOrderLine[] {
  return facts.lines.map((l) => ({
    storeLineId: l.storeLineId,
    vid: '',
    quantity: l.quantity,
    ...(l.sku !== undefined && l.sku.trim() !== '' && { sku: l.sku.trim() }),
    ...(l.productId !== undefined && { storeProductId: l.productId }),
    ...(l.variantId !== undefined && { storeVariantId: l.variantId }),
  }));
}

const cut = (value: string | undefined, max: number) =>
  value === undefined || value.trim() === '' ? undefined : value.trim().slice(0, max);

/** The amendable fields of the order (address, contact, lines) as the store has them now. */
export function orderFields(facts: StoreOrderFacts): Record<string, unknown> {
  const usd = facts.currency.toUpperCase() === 'USD';
  return {
    shippingCustomerName: cut(facts.customerName, 50),
    shippingAddress: cut(facts.address1, 500),
    ...(cut(facts.address2, 500) !== undefined && { shippingAddress2: cut(facts.address2, 500) }),
    shippingCity: cut(facts.city, 50),
    shippingProvince: cut(facts.province, 50) ?? cut(facts.city, 50),
    shippingCountryCode: facts.countryCode.toUpperCase(),
    shippingCountry: cut(countryName(facts), 50),
    ...(cut(facts.zip, 20) !== undefined && { shippingZip: cut(facts.zip, 20) }),
    ...(cut(facts.phone, 20) !== undefined && { shippingPhone: cut(facts.phone, 20) }),
    ...(cut(facts.email, 50) !== undefined && { email: cut(facts.email, 50) }),
    products: facts.lines.map((l) => ({
      sku: pendingSku(l),
      quantity: l.quantity,
      storeLineItemId: l.storeLineId,
      ...(usd && l.unitPrice !== undefined && { salePrice: l.unitPrice }),
    })),
  };
}

/** The order document (parseOrder's input) of a store order. */
export function orderDocument(
  connection: StoreConnection & { fromCountryCode?: string },
  facts: StoreOrderFacts,
): Record<string, unknown> {
  const store: StoreOrderRef = {
    connection: connection.id,
    platform: connection.platform,
    orderId: facts.orderId,
    orderName: facts.orderName.slice(0, 100),
    lines: storeLines(facts),
    ...(connection.holdFor !== undefined && { holdFor: connection.holdFor }),
  };
  const fast = facts.shipping !== undefined && FAST_SHIPPING.test(facts.shipping);
  return {
    orderNumber: storeOrderNumber(connection.id, facts.orderId),
    ...orderFields(facts),
    fromCountryCode: connection.fromCountryCode ?? 'CN',
    ...(connection.account !== 'default' && { account: connection.account }),
    store,
    fulfillment: {
      flow: 'B',
      logistics: { policy: fast ? 'fastest' : 'cheapest' },
      payment: { policy: 'balance' },
    },
  };
}

/** What is wrong with a store order before dropflow can take it (the gateway answers 200 anyway). */
export function factsIssues(facts: StoreOrderFacts): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (facts.address1.trim() === '' || facts.countryCode.trim() === '') {
    issues.push({ field: 'shipping_address', rule: 'is required (an order with nothing to ship)' });
  }
  if (facts.lines.length === 0) issues.push({ field: 'line_items', rule: 'must hold a line' });
  return issues;
}
