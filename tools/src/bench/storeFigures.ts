/**
 * The store figures of `dropflow bench orders --store`: what the store double counted (its own
 * request counters, the webhooks it sent) and how long each parcel took from the supplier's
 * shipment (the moment the sandbox gave it its tracking number) to the store's fulfillment of
 * that tracking number.
 */
import type { SentWebhook } from '../storeDoubles/index.js';
import { quantile } from '../localStack/toCreated.js';
import type { Sandbox } from '../sandbox/sandbox.js';

export const BenchStorePlatform = { shopify: 'shopify', woocommerce: 'woocommerce' } as const;
export type BenchStorePlatform = (typeof BenchStorePlatform)[keyof typeof BenchStorePlatform];

/** One fulfillment (Shopify) or shipment tracking (WooCommerce) the store holds. */
export interface StoreFulfillment {
  storeOrderId: number;
  trackNumber: string | undefined;
  /** When the store made it, ms. */
  at: number;
}

/** What a store double saw during a phase. */
export interface StoreSeen {
  /** Every API request, answered or refused. */
  requests: number;
  byKind: Record<string, number>;
  /** Refused for the store's rate limit: THROTTLED (Shopify), 429 (WooCommerce). */
  refused: number;
  webhooks: readonly SentWebhook[];
  fulfillments: readonly StoreFulfillment[];
}

export interface StoreFigures {
  platform: BenchStorePlatform;
  /** Store API requests (the double's own counters, refused ones included) ÷ orders. */
  callsPerOrder: number;
  /** Requests by GraphQL root field (Shopify) or route (WooCommerce), totals. */
  callsByKind: Record<string, number>;
  refused: number;
  webhooksSent: number;
  /** Webhooks the gateway did not answer with 200 (the double sends each once). */
  webhooksNotAccepted: number;
  /** Orders with at least one fulfillment in the store, and fulfillments in all. */
  ordersFulfilled: number;
  fulfillments: number;
  /** Fulfillments whose tracking number the sandbox shipped: the latencies' sample. */
  matched: number;
  trackingToFulfillmentP50Ms: number | null;
  trackingToFulfillmentP99Ms: number | null;
}

/** When the sandbox shipped each of the account's parcels, by tracking number. */
export function shippedAtByTrackNumber(sandbox: Sandbox, openId: string): Map<string, number> {
  const shipped = new Map<string, number>();
  for (const order of Object.values(sandbox.state.orders)) {
    if (order.openId !== openId) continue;
    if (order.trackNumber === undefined || order.shippedAt === undefined) continue;
    shipped.set(order.trackNumber, order.shippedAt);
  }
  return shipped;
}

export function storeFigures(
  platform: BenchStorePlatform,
  seen: StoreSeen,
  shippedAt: ReadonlyMap<string, number>,
  orders: number,
): StoreFigures {
  const latencies: number[] = [];
  for (const f of seen.fulfillments) {
    const shipped = f.trackNumber === undefined ? undefined : shippedAt.get(f.trackNumber);
    if (shipped !== undefined) latencies.push(f.at - shipped);
  }
  latencies.sort((a, b) => a - b);
  const orNull = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    platform,
    callsPerOrder: seen.requests / orders,
    callsByKind: seen.byKind,
    refused: seen.refused,
    webhooksSent: seen.webhooks.length,
    webhooksNotAccepted: seen.webhooks.filter((w) => w.status !== 200).length,
    ordersFulfilled: new Set(seen.fulfillments.map((f) => f.storeOrderId)).size,
    fulfillments: seen.fulfillments.length,
    matched: latencies.length,
    trackingToFulfillmentP50Ms: orNull(quantile(latencies, 0.5)),
    trackingToFulfillmentP99Ms: orNull(quantile(latencies, 0.99)),
  };
}
