/**
 * Tracking out, through the delivery activity the order outbox calls, to the store doubles over
 * HTTP: per parcel, never twice under lost answers and retries, through Shopify's throttle, named
 * when the store refuses, going on once it is mended; delivery and cancellations where each
 * platform has a place; WooCommerce's tracking extension, its absence, and the completed order.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';

import {
  storeEventActivities,
  type DeliverStoreEventInput,
  type DeliveryResult,
} from '../../src/storeEvents/activities.js';
import { storeOrderNumber, type StoreOrderRef } from '../../src/store/contract.js';
import type { StoreEvent } from '../../src/storeEvents/contract.js';
import { event, shopifyRef, twoLines, useStoreDoubles, wooRef } from './doubles.js';

const doubles = useStoreDoubles();

async function deliver(store: StoreOrderRef, e: StoreEvent, attempt = 1): Promise<DeliveryResult> {
  // No STORE_EVENTS_URL: store orders are delivered all the same.
  const activities = storeEventActivities(
    { retryFirstMs: 1_000, retryMaxMs: 3_600_000 },
    doubles().directory,
  );
  const run = (input: DeliverStoreEventInput) => activities.deliverStoreEvent(input);
  // The store order's own order, as the connection started it.
  const own = { ...e, orderNumber: storeOrderNumber(store.connection, store.orderId) };
  return new MockActivityEnvironment().run(run, { event: own, attempt, store });
}

const parcel = (code: string, vid: string, quantity: number, trackNumber?: string) => ({
  code,
  lines: [{ vid, quantity }],
  ...(trackNumber !== undefined && {
    trackNumber,
    trackingUrl: `https://track.example/${trackNumber}`,
  }),
  trackingProvider: 'YunExpress',
});

describe('Shopify: tracking out', () => {
  it('makes one fulfillment per parcel, with its lines, tracking and the store’s notify choice', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    const ref = shopifyRef(order);
    expect(
      await deliver(ref, event('order.shipped', { parcel: parcel('P1', 'V1', 1, 'YT001') })),
    ).toMatchObject({ outcome: 'delivered' });
    expect(
      await deliver(ref, event('order.shipped', { parcel: parcel('P2', 'V2', 2, 'YT002') })),
    ).toMatchObject({ outcome: 'delivered' });
    const fulfillments = shopify.double.order(order.id)!.fulfillments;
    expect(
      fulfillments.map((f) => [
        f.trackingInfo[0]?.number,
        f.lineItems.map((l) => [l.lineItemId, l.quantity]),
        f.notifyCustomer,
      ]),
    ).toEqual([
      ['YT001', [[order.lineItems[0]!.id, 1]], true],
      ['YT002', [[order.lineItems[1]!.id, 2]], true],
    ]);
    expect(fulfillments[0]!.trackingInfo[0]).toMatchObject({
      company: 'YunExpress',
      url: 'https://track.example/YT001',
    });
    expect(shopify.double.order(order.id)!.fulfillmentOrders[0]!.status).toBe('CLOSED');
  });

  it('an order from before parcels: one fulfillment of every line', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    await deliver(
      shopifyRef(order),
      event('order.shipped', { trackNumber: 'OLD1', carrier: 'USPS' }),
    );
    const [f, ...rest] = shopify.double.order(order.id)!.fulfillments;
    expect(rest).toEqual([]);
    expect(f!.lineItems.map((l) => l.quantity)).toEqual([1, 2]);
    expect(f!.trackingInfo[0]).toMatchObject({ number: 'OLD1', company: 'USPS' });
  });

  it('a lost answer to fulfillmentCreate, then the retry: still exactly one fulfillment', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    const shipped = event('order.shipped', { parcel: parcel('P1', 'V1', 1, 'LOST1') });
    shopify.double.loseAnswer('fulfillmentCreate');
    const first = await deliver(shopifyRef(order), shipped);
    expect(first).toMatchObject({ outcome: 'failed', reason: 'store-unavailable' });
    // It acted: the shop has the fulfillment though the answer never came.
    expect(shopify.double.order(order.id)!.fulfillments).toHaveLength(1);
    expect(await deliver(shopifyRef(order), shipped, 2)).toMatchObject({ outcome: 'delivered' });
    expect(shopify.double.order(order.id)!.fulfillments).toHaveLength(1);
  });

  it('a changed tracking number updates the parcel’s fulfillment instead of making another', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    await deliver(
      shopifyRef(order),
      event('order.shipped', { parcel: parcel('P1', 'V1', 1, 'FIRST') }),
    );
    await deliver(
      shopifyRef(order),
      event('order.shipped', { parcel: parcel('P1', 'V1', 1, 'SECOND') }),
    );
    const fulfillments = shopify.double.order(order.id)!.fulfillments;
    expect(fulfillments.map((f) => f.trackingInfo[0]?.number)).toEqual(['SECOND']);
  });

  it('waits out a THROTTLED answer and writes the fulfillment', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    const before = shopify.double.stats.throttled;
    shopify.double.throttle(1);
    expect(
      await deliver(shopifyRef(order), event('order.shipped', { trackNumber: 'THR1' })),
    ).toMatchObject({ outcome: 'delivered' });
    expect(shopify.double.stats.throttled).toBe(before + 1);
    expect(shopify.double.order(order.id)!.fulfillments).toHaveLength(1);
  });

  it('a revoked token is a named wait, retried within 5 minutes, and goes on once mended', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    const shipped = event('order.shipped', { trackNumber: 'REV1' });
    shopify.double.revokeToken();
    const refused = await deliver(shopifyRef(order), shipped, 12);
    expect(refused).toMatchObject({ outcome: 'failed', status: 401, reason: 'store-refused' });
    expect(refused.outcome === 'failed' && refused.retryInMs).toBe(300_000);
    expect(refused.outcome === 'failed' && refused.message).toMatch(
      /refused the access token .*dropflow store test shop-1/,
    );
    expect(shopify.double.order(order.id)!.fulfillments).toHaveLength(0);
    shopify.double.restoreToken();
    expect(await deliver(shopifyRef(order), shipped, 13)).toMatchObject({ outcome: 'delivered' });
    expect(shopify.double.order(order.id)!.fulfillments).toHaveLength(1);
  });

  it('a missing scope names the scope', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    shopify.double.removeScope('write_merchant_managed_fulfillment_orders');
    try {
      const refused = await deliver(
        shopifyRef(order),
        event('order.shipped', { trackNumber: 'SC1' }),
      );
      expect(refused).toMatchObject({ outcome: 'failed', reason: 'store-refused' });
      expect(refused.outcome === 'failed' && refused.message).toMatch(
        /write_merchant_managed_fulfillment_orders/,
      );
    } finally {
      shopify.double.setScopes([
        'read_orders',
        'write_orders',
        'read_merchant_managed_fulfillment_orders',
        'write_merchant_managed_fulfillment_orders',
        'write_fulfillments',
      ]);
    }
  });

  it('delivery: one DELIVERED fulfillment event per parcel, however often it is told', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    const ref = shopifyRef(order);
    const parcels = [parcel('P1', 'V1', 1, 'D1'), parcel('P2', 'V2', 2, 'D2')];
    for (const p of parcels) await deliver(ref, event('order.shipped', { parcel: p }));
    const delivered = event('order.delivered', {
      deliveredAt: '2026-11-20T10:00:00.000Z',
      parcels,
    });
    await deliver(ref, delivered);
    await deliver(ref, delivered, 2);
    const events = shopify.double
      .order(order.id)!
      .fulfillments.map((f) => f.events.map((e) => e.status));
    expect(events).toEqual([['DELIVERED'], ['DELIVERED']]);
  });

  it('a supplier cancellation: a tag and one note line with the reason', async () => {
    const { shopify } = doubles();
    const order = await shopify.double.createOrder({ lines: twoLines });
    const cancelled = event('order.cancelled', {
      reason: 'out of stock at the supplier',
      by: 'supplier',
    });
    await deliver(shopifyRef(order), cancelled);
    await deliver(shopifyRef(order), cancelled, 2);
    const after = shopify.double.order(order.id)!;
    expect(after.tags).toEqual(['dropflow-cancelled']);
    expect(after.note).toBe(
      '[dropflow] fulfilment cancelled by the supplier: out of stock at the supplier',
    );
    expect(after.fulfillments).toHaveLength(0);
  });
});

describe('WooCommerce: tracking out', () => {
  it('adds each parcel’s tracking once, and completes the order when every line has left', async () => {
    const { woo } = doubles();
    const order = await woo.double.createOrder({ lines: twoLines });
    const ref = wooRef(order);
    woo.double.loseAnswer('POST tracking');
    const first = event('order.shipped', { parcel: parcel('P1', 'V1', 1, 'W001') });
    expect(await deliver(ref, first)).toMatchObject({ outcome: 'failed' });
    expect(await deliver(ref, first, 2)).toMatchObject({ outcome: 'delivered' });
    expect(woo.double.site.orders.get(order.id)!.status).toBe('processing');
    await deliver(ref, event('order.shipped', { parcel: parcel('P2', 'V2', 2, 'W002') }));
    expect(
      woo.double.site.trackings
        .get(order.id)!
        .map((t) => [t.tracking_number, t.tracking_provider, t.tracking_link]),
    ).toEqual([
      ['W001', 'YunExpress', 'https://track.example/W001'],
      ['W002', 'YunExpress', 'https://track.example/W002'],
    ]);
    expect(woo.double.site.orders.get(order.id)!.status).toBe('completed');
  });

  it('without the Shipment Tracking extension: one customer note per parcel', async () => {
    const { woo } = doubles();
    woo.double.shipmentTracking = false;
    try {
      const order = await woo.double.createOrder({ lines: twoLines });
      const shipped = event('order.shipped', {
        trackNumber: 'N1',
        trackingUrl: 'https://t.example/N1',
        carrier: 'USPS',
      });
      await deliver(wooRef(order), shipped);
      await deliver(wooRef(order), shipped, 2);
      expect(woo.double.site.notes.get(order.id)).toMatchObject([
        {
          note: 'Your parcel has shipped with USPS, tracking number N1: https://t.example/N1',
          customer_note: true,
        },
      ]);
      expect(woo.double.site.orders.get(order.id)!.status).toBe('completed');
    } finally {
      woo.double.shipmentTracking = true;
    }
  });

  it('a revoked key waits, named, and goes on once mended; a cancellation becomes a private note', async () => {
    const { woo } = doubles();
    const order = await woo.double.createOrder({ lines: twoLines });
    const cancelled = event('order.cancelled', { reason: 'address undeliverable', by: 'supplier' });
    woo.double.revokeKey();
    expect(await deliver(wooRef(order), cancelled)).toMatchObject({
      outcome: 'failed',
      status: 401,
      reason: 'store-refused',
    });
    woo.double.restoreKey();
    expect(await deliver(wooRef(order), cancelled, 2)).toMatchObject({ outcome: 'delivered' });
    expect(woo.double.site.notes.get(order.id)).toMatchObject([
      {
        note: '[dropflow] fulfilment cancelled by the supplier: address undeliverable',
        customer_note: false,
      },
    ]);
  });

  it('a 429 from the host is waited out for reads', async () => {
    const { woo } = doubles();
    const order = await woo.double.createOrder({ lines: twoLines });
    woo.double.fail(1, 429);
    expect(
      await deliver(
        wooRef(order),
        event('order.delivered', { deliveredAt: '2026-11-21T00:00:00Z' }),
      ),
    ).toMatchObject({ outcome: 'delivered' });
    expect(woo.double.site.notes.get(order.id)).toMatchObject([
      { note: 'Your order was delivered on 2026-11-21.', customer_note: true },
    ]);
  });
});
