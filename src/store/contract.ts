/**
 * The merchant's store, plugged in (docs/store-shopify.md, docs/store-woocommerce.md): the
 * reference an order keeps to its store order, and the names the gateway, the order workflow, the
 * CLI and the store clients share. A store connection itself is a record of the account registry
 * (src/accounts/contract.ts). Inbound (store orders in) is in ./intake; outbound (tracking and
 * notes back to the store) is the store events' (src/storeEvents/storeWrite.ts).
 * Sandbox-safe: no I/O, no Node API; imports only @temporalio/workflow's definers and contracts.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { StorePlatform, type StoreConnection } from '../accounts/contract.js';

// ---- the order's reference to its store order ------------------------------------------------

/** One line of a store order and the supplier variant it is fulfilled with. */
export interface StoreOrderLine {
  /** The platform's line item id (Shopify `line_items[].id`, WooCommerce `line_items[].id`). */
  storeLineId: string;
  /** The supplier variant; empty while the line waits for a mapping (stage AWAITING_MAPPING). */
  vid: string;
  quantity: number;
  sku?: string;
  /** The store's product and variant ids (flow C, and writing back per line). */
  storeProductId?: string;
  storeVariantId?: string;
}

/**
 * The store order an order was made from (the order input's `store`, docs/orders.md): where its
 * events go back to, and how its lines map to the store's.
 */
export interface StoreOrderRef {
  connection: string;
  platform: StorePlatform;
  /** The platform's order id (Shopify's numeric id, WooCommerce's order id). */
  orderId: string;
  /** What the merchant sees: Shopify `name` (`#1001`), WooCommerce `number`. */
  orderName: string;
  lines: StoreOrderLine[];
  /** The connection's hold window when the order came in (ISO-8601 duration). */
  holdFor?: string;
}

/**
 * The orderNumber of a store order: `<connection>-<store order id>`. Deterministic, so a
 * re-delivered webhook names the same order workflow (started once), within the supplier's 50
 * characters and without `:`.
 */
export function storeOrderNumber(connection: string, storeOrderId: string): string {
  return `${connection}-${storeOrderId}`;
}

/** The gateway's route for a connection's webhooks (docs/gateway.md). */
export const STORE_WEBHOOK_PREFIX = '/webhooks/store/';
export function storeWebhookPath(connection: string): string {
  return `${STORE_WEBHOOK_PREFIX}${connection}`;
}

// ---- what the store tells an order after it started -------------------------------------------

/** Store-side news about an order the order workflow takes (signal `storeOrder`). */
export interface StoreOrderNews {
  /** The platform's event id (Shopify `X-Shopify-Event-Id`, WooCommerce delivery id). */
  eventId: string;
  kind: 'cancelled' | 'updated';
  /** When the store says it happened (ISO 8601). */
  at?: string;
  /** cancelled: the store's reason (`customer`, `fraud`, …). */
  reason?: string;
  /**
   * updated: the order as the store has it now, mapped to dropflow's (the amendable fields of
   * orderInput.ts) and its lines; taken while the supplier does not have the order.
   */
  order?: Record<string, unknown>;
  lines?: StoreOrderLine[];
}

/** The gateway tells an order what its store order became (cancelled, edited). */
export const storeOrderSignal = defineSignal<[StoreOrderNews]>('storeOrder');

export interface SkuMappedNews {
  connection: string;
  sku: string;
}
/** `dropflow store map` tells the orders waiting for a SKU that it is mapped now. */
export const storeSkuMappedSignal = defineSignal<[SkuMappedNews]>('storeSkuMapped');

// ---- the order sweep of a WooCommerce site (docs/store-woocommerce.md) ---------------------------

/** The long-running sweep of one store connection's recent orders (store/sweep/storeOrderSweep.ts). */
export const STORE_ORDER_SWEEP_WORKFLOW = 'storeOrderSweep';
/** The interval of a connection that sets none: every 5 minutes. */
export const DEFAULT_SWEEP_EVERY = 'PT5M';

/** `store-sweep:<connection>`, or `store-sweep:<queue prefix>/<connection>` (connection ids are unique per registry). */
export function storeSweepId(queuePrefix: string, connection: string): string {
  return `store-sweep:${queuePrefix === '' ? '' : `${queuePrefix}/`}${connection}`;
}

/** Whether a connection's orders are swept: WooCommerce does not retry its webhooks. */
export function sweepsOrders(store: Pick<StoreConnection, 'platform'>): boolean {
  return store.platform === StorePlatform.WooCommerce;
}

/** Why a sweep waits instead of sweeping on time. */
export const SweepWait = {
  /** The site refuses the key (revoked, without read permission, no REST API v3): a person mends it. */
  Refused: 'store-refused',
  /** The site did not answer, or answered 5xx or 429 past the client's bound. */
  Unavailable: 'store-unavailable',
} as const;
export type SweepWait = (typeof SweepWait)[keyof typeof SweepWait];

export interface SweepCounts {
  /** Requests sent to the site. */
  requests: number;
  /** Orders the site listed. */
  listed: number;
  /** Orders this sweep started (their webhook was lost, or has not come yet). */
  started: number;
  /** Orders dropflow had already (their webhook came): nothing new. */
  existing: number;
  /** Store cancellations told to a started order. */
  told: number;
  /** Orders skipped: seen unchanged by an earlier sweep. */
  skipped: number;
  /** Orders dropflow cannot take as they are (named in the worker's log); tried again once edited. */
  refused: number;
}

export function noSweepCounts(): SweepCounts {
  return { requests: 0, listed: 0, started: 0, existing: 0, told: 0, skipped: 0, refused: 0 };
}

/** The memo key of a sweep run's cursor: where a sweep started anew (terminated) takes up. */
export const SWEEP_CURSOR_MEMO = 'storeSweepCursor';

export interface LastStoreSweep extends SweepCounts {
  startedAt: string;
  endedAt: string;
  /** The `modified_after` the sweep asked from (the cursor less the overlap). */
  since: string;
}

export interface StoreSweepStatus {
  connection: string;
  /** The latest `date_modified_gmt` seen (ISO 8601, UTC). */
  cursor: string;
  everyMs: number;
  /** Sweeps this sweep (and the runs it continued from) concluded: read every page, or waited. */
  sweeps: number;
  /** Set while the sweep waits for the site instead of sweeping on time. */
  waiting?: { reason: SweepWait; since: string; message: string };
  nextSweepAt?: string;
  last?: LastStoreSweep;
}

/** Sweep now rather than at the end of the interval (an operator, a test). */
export const storeSweepNowSignal = defineSignal('storeSweepNow');
export const storeSweepStatusQuery = defineQuery<StoreSweepStatus>('storeSweepStatus');
