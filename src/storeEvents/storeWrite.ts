/**
 * An order's store event written to the store order it came from: tracking per parcel, delivery,
 * a supplier cancellation and lateness where the platform has a place for them. Events the store
 * has no place for are done at once. Throws a `StoreApiError` when the store did not take it; the
 * outbox tries again, and every writer looks before it writes, so nothing is written twice.
 */
import type { StoreEvent } from './contract.js';
import type { StoreOrderRef } from '../store/contract.js';
import type { Store } from '../accounts/contract.js';
import type { StoreOrderTarget } from '../store/parcel.js';
import { ShopifyAdmin, type ShopifyClientOptions } from '../store/shopify/admin.js';
import { ShopifyTracking } from '../store/shopify/tracking.js';
import { WooRest } from '../store/woocommerce/rest.js';
import { WooTracking } from '../store/woocommerce/tracking.js';
import { deliveredParcels, shippedParcel } from './storeParcels.js';

/** The tag a Shopify order gets when the supplier cancelled its fulfilment. */
export const CANCELLED_TAG = 'dropflow-cancelled';

export interface StoreWrite {
  /** What was done, for the log: `fulfillment created`, `nothing to write`, … */
  done: string;
  /** Requests sent to the store for this event. */
  calls: number;
}

interface Writer {
  shipped(event: Extract<StoreEvent, { type: 'order.shipped' }>): Promise<string>;
  delivered(event: Extract<StoreEvent, { type: 'order.delivered' }>): Promise<string>;
  note(line: string, tag?: string): Promise<string>;
  calls(): number;
}

function shopifyWriter(
  conn: Extract<Store, { platform: 'shopify' }>,
  ref: StoreOrderRef,
  target: StoreOrderTarget,
  opts: ShopifyClientOptions,
): Writer {
  const admin = new ShopifyAdmin(
    {
      apiBaseUrl: conn.apiBaseUrl,
      apiVersion: conn.apiVersion ?? '2025-10',
      adminAccessToken: conn.secrets.adminAccessToken,
    },
    opts,
  );
  const t = new ShopifyTracking(admin, target);
  return {
    shipped: async (e) => `fulfillment ${await t.shipped(shippedParcel(ref, e))}`,
    delivered: async (e) =>
      `${await t.delivered(deliveredParcels(ref, e), e.data.deliveredAt)} delivered events`,
    note: async (line, tag) => {
      await t.note(line, tag);
      return 'note kept';
    },
    calls: () => admin.requests,
  };
}

function wooWriter(
  conn: Extract<Store, { platform: 'woocommerce' }>,
  ref: StoreOrderRef,
  target: StoreOrderTarget,
): Writer {
  const rest = new WooRest({
    apiBaseUrl: conn.apiBaseUrl,
    consumerKey: conn.secrets.consumerKey,
    consumerSecret: conn.secrets.consumerSecret,
  });
  const t = new WooTracking(rest, target);
  return {
    shipped: async (e) => {
      await t.shipped(shippedParcel(ref, e));
      return 'tracking kept';
    },
    delivered: async (e) => {
      await t.delivered(e.data.deliveredAt);
      return 'delivery noted';
    },
    note: async (line) => {
      await t.note(line);
      return 'note kept';
    },
    calls: () => rest.requests,
  };
}

export async function writeToStore(
  conn: Store,
  ref: StoreOrderRef,
  event: StoreEvent,
  opts: ShopifyClientOptions = {},
): Promise<StoreWrite> {
  const target: StoreOrderTarget = {
    orderId: ref.orderId,
    orderName: ref.orderName,
    lines: ref.lines.map((l) => ({ storeLineId: l.storeLineId, quantity: l.quantity })),
    notifyCustomer: conn.notifyCustomer,
  };
  const w =
    conn.platform === 'shopify'
      ? shopifyWriter(conn, ref, target, opts)
      : wooWriter(conn, ref, target);
  const done = await dispatch(w, event);
  return { done, calls: w.calls() };
}

function dispatch(w: Writer, event: StoreEvent): Promise<string> {
  switch (event.type) {
    case 'order.shipped':
      return w.shipped(event);
    case 'order.delivered':
      return w.delivered(event);
    case 'order.cancelled': {
      const who = event.data.by === 'supplier' ? 'the supplier' : 'an operator';
      return w.note(
        `fulfilment cancelled by ${who}: ${event.data.reason}`,
        event.data.by === 'supplier' ? CANCELLED_TAG : undefined,
      );
    }
    case 'order.late':
      return w.note(
        `late: not ${event.data.deadline} within ${event.data.within} (due ${event.data.dueAt})`,
      );
    default:
      return Promise.resolve('nothing to write');
  }
}
