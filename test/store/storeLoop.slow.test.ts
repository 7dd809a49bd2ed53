/**
 * The store loop end to end: an order placed on a store double reaches the gateway as the platform
 * sends it (real headers, HMAC of the raw body), becomes an order workflow on the real dev server,
 * is bought from the real sandbox, split by the supplier into two parcels, and each parcel's
 * tracking goes back to the store double: two fulfillments (Shopify) or two tracking entries and
 * a completed order (WooCommerce), never more under a lost answer and re-delivered webhooks.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';

import { orderWorkflowId, ParcelStage, Stage, type OrderStatus } from '../../src/order/contract.js';
import { storeOrderNumber, storeWebhookPath } from '../../src/store/contract.js';
import { OrderTrigger, type Store, type StoreDirectory } from '../../src/accounts/contract.js';
import { control } from '../sandbox/controls.js';
import { advance } from '../supplier/orderHelpers.js';
import { reachStage, sweepUntil, useOrderHarness, type OrderHarness } from '../support/orders.js';
import { useTestGateway } from '../gateway/support.js';
import { useStoreDoubles } from './doubles.js';

const tag = Date.now().toString(36);
const SHOP = `loop-shop-${tag}`;
const WOO = `loop-woo-${tag}`;

/** Two lines the sandbox sells by SKU: one parcel each once the supplier splits the order. */
const LINES = [
  { sku: 'SKU0001-BLACK', quantity: 2, price: '49.00' },
  { sku: 'SKU0003-WHITE', quantity: 1, price: '39.00' },
];

const doubles = useStoreDoubles();
const connections = new Map<string, Store>();
const stores: StoreDirectory = {
  store: (id) => connections.get(id),
  stores: () => [...connections.values()],
  mappedVid: () => undefined,
};
const h = useOrderHarness('store-loop', 5_000, () => ({
  stores,
  // No STORE_EVENTS_URL: store orders are written to their store all the same.
  storeEvents: { retryFirstMs: 300, retryMaxMs: 1_000 },
}));
const gateway = useTestGateway(h, { stores });

/** The supplier splits the paid order, one parcel per line, and ships both. */
async function shipInTwoParcels(handle: WorkflowHandle): Promise<OrderStatus> {
  const { svcOrderId } = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  const split = await control<{ splitInto: string[] }>('POST', `orders/${svcOrderId}/split`, {
    parts: [[0], [1]],
  });
  expect(split.status).toBe(200);
  const codes = split.body.splitInto;
  expect(codes).toHaveLength(2);
  for (const code of codes) expect((await advance(code, 'SHIPPED')).status).toBe(200);
  const shipped = await sweepUntil(h, handle, 'both parcels shipped', (s) =>
    codes.every((c) => s.parcels?.find((p) => p.code === c)?.stage === ParcelStage.SHIPPED),
  );
  for (const code of codes) expect((await advance(code, 'DELIVERED')).status).toBe(200);
  await sweepUntil(h, handle, 'completed', (s) => s.stage === Stage.COMPLETED);
  // The workflow ends once its outbox has written every event to the store.
  await handle.result();
  return shipped;
}

/** The two parcels as the order saw them: the store line each holds and its tracking number. */
function parcelsOf(status: OrderStatus): { storeLineIds: string[]; trackNumber: string }[] {
  return status
    .parcels!.filter((p) => p.stage !== ParcelStage.SPLIT)
    .map((p) => {
      expect(p.trackNumber).toMatch(/\w+/);
      return {
        storeLineIds: p.lines.map((l) => l.storeLineId!).sort(),
        trackNumber: p.trackNumber!,
      };
    })
    .sort((a, b) => a.trackNumber.localeCompare(b.trackNumber));
}

function handleOf(h: OrderHarness, connection: string, orderId: number): WorkflowHandle {
  return h.client.workflow.getHandle(
    orderWorkflowId(storeOrderNumber(connection, String(orderId))),
  );
}

describe('the store loop', () => {
  it('Shopify: an order in, split in two parcels, two fulfillments in the store, never more', async () => {
    const { shopify, shopifyConnection } = doubles();
    connections.set(SHOP, {
      ...shopifyConnection,
      id: SHOP,
      orderTrigger: OrderTrigger.Created,
    });
    shopify.double.webhookUrl = `${gateway.url}${storeWebhookPath(SHOP)}`;
    // The first fulfillment acts and its answer is lost: the retry must look before it sends.
    shopify.double.loseAnswer('fulfillmentCreate', 1);

    const order = await shopify.double.createOrder({ lines: LINES, paid: true });
    expect(shopify.double.sent.map((s) => [s.topic, s.status])).toEqual([
      ['orders/create', 200],
      ['orders/paid', 200],
    ]);
    const handle = handleOf(h, SHOP, order.id);
    const shipped = await shipInTwoParcels(handle);

    const fulfillments = shopify.double.order(order.id)!.fulfillments;
    const written = fulfillments
      .map((f) => ({
        storeLineIds: f.lineItems.map((l) => String(l.lineItemId)).sort(),
        trackNumber: f.trackingInfo[0]!.number!,
      }))
      .sort((a, b) => a.trackNumber.localeCompare(b.trackNumber));
    expect(written).toEqual(parcelsOf(shipped));
    expect(
      written
        .map((w) => w.storeLineIds)
        .flat()
        .sort(),
    ).toEqual(order.lineItems.map((l) => String(l.id)).sort());
    expect(fulfillments.map((f) => f.lineItems.map((l) => l.quantity))).toEqual(
      expect.arrayContaining([[2], [1]]),
    );
    // One create per parcel: the one whose answer was lost was found, not sent again.
    expect(shopify.double.stats.lostAnswers).toBe(1);
    expect(shopify.double.stats.byField['fulfillmentCreate']).toBe(2);

    // Shopify re-delivers both webhooks: nothing new starts, nothing more is written.
    for (const topic of ['orders/create', 'orders/paid'] as const) {
      expect((await shopify.double.redeliver(order.id, topic))?.status).toBe(200);
    }
    const again = await h.client.workflow.count(`WorkflowId = '${handle.workflowId}'`);
    expect(again.count).toBe(1);
    expect(shopify.double.order(order.id)!.fulfillments).toHaveLength(2);
  });

  it('WooCommerce: an order in, split in two parcels, two trackings, completed once both left', async () => {
    const { woo, wooConnection } = doubles();
    connections.set(WOO, {
      ...wooConnection,
      id: WOO,
      secrets: { ...wooConnection.secrets, webhookSecret: woo.double.webhookSecret },
    });
    woo.double.webhookUrl = `${gateway.url}${storeWebhookPath(WOO)}`;

    const order = await woo.double.createOrder({ lines: LINES });
    expect(woo.double.sent.map((s) => [s.topic, s.status])).toEqual([['order.created', 200]]);
    const handle = handleOf(h, WOO, order.id);
    const shipped = await shipInTwoParcels(handle);

    const trackings = woo.double.site.trackings.get(order.id) ?? [];
    expect(trackings.map((t) => t.tracking_number).sort()).toEqual(
      parcelsOf(shipped).map((p) => p.trackNumber),
    );
    expect(woo.double.site.orders.get(order.id)!.status).toBe('completed');
  });
});
