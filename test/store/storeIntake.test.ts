/**
 * Store orders in, end to end: Shopify and WooCommerce webhooks (real headers, HMACs computed here
 * with node:crypto) through a real gateway to order workflows on the real dev server, SKUs
 * resolved against the real sandbox.
 */
import { randomUUID } from 'node:crypto';

import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';

import { orderWorkflowId, Stage, statusQuery } from '../../src/order/contract.js';
import { storeOrderNumber, storeWebhookPath } from '../../src/store/contract.js';
import { OrderTrigger, type Store, type StoreDirectory } from '../../src/accounts/contract.js';
import { releaseWaiting } from '../../src/cli/commands/storeMap.js';
import { eventually } from '../support/eventually.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { reachStage, useOrderHarness } from '../support/orders.js';
import { hmac, useTestGateway } from '../gateway/support.js';
import { connectAtSupplier } from '../supplier/orderHelpers.js';

const SHOPIFY_SECRET = 'shopify-client-secret-for-tests';
const WOO_SECRET = 'woo-webhook-secret-for-tests';

const connection = (id: string, more: Partial<Store> = {}): Store =>
  ({
    id,
    account: 'default',
    platform: 'shopify',
    apiBaseUrl: 'http://127.0.0.1:9/admin/api/2025-10',
    shopDomain: `${id}.myshopify.com`,
    apiVersion: '2025-10',
    orderTrigger: OrderTrigger.Created,
    notifyCustomer: true,
    secrets: { adminAccessToken: 'shpat_test', clientSecret: SHOPIFY_SECRET },
    ...more,
  }) as Store;

const tag = Date.now().toString(36);
const STORES = new Map<string, Store>([
  [`shop-${tag}`, connection(`shop-${tag}`)],
  [`held-${tag}`, connection(`held-${tag}`, { holdFor: 'PT1H' })],
  [
    `woo-${tag}`,
    {
      id: `woo-${tag}`,
      account: 'default',
      platform: 'woocommerce',
      apiBaseUrl: 'http://127.0.0.1:9/wp-json/wc/v3',
      siteUrl: 'http://127.0.0.1:9',
      orderTrigger: OrderTrigger.Paid,
      notifyCustomer: true,
      secrets: { consumerKey: 'ck_test', consumerSecret: 'cs_test', webhookSecret: WOO_SECRET },
    },
  ],
]);
const MAPPINGS = new Map<string, string>();
const stores: StoreDirectory = {
  store: (id) => STORES.get(id),
  stores: () => [...STORES.values()],
  mappedVid: (c, sku) => MAPPINGS.get(`${c}/${sku}`),
};

const h = useOrderHarness('store-in', 5_000, { stores });
const gateway = useTestGateway(h, { stores });

let seq = 1000;
/** A Shopify order of these SKUs; its lines are products 7000… unless `productIds` names them. */
function shopifyOrder(skus: string[], productIds?: number[]) {
  seq += 1;
  return {
    id: Number(`${Date.now()}${seq}`.slice(-15)),
    name: `#${seq}`,
    email: 'ada@example.com',
    currency: 'USD',
    financial_status: 'paid',
    cancelled_at: null,
    cancel_reason: null,
    shipping_address: {
      name: 'Ada Example',
      address1: '1 Example Street',
      city: 'Beverly Hills',
      province: 'California',
      country: 'United States',
      country_code: 'US',
      zip: '90210',
      phone: '3105550100',
    },
    line_items: skus.map((sku, i) => ({
      id: seq * 10 + i,
      sku,
      quantity: 1,
      price: '49.00',
      total_discount: '0.00',
      product_id: productIds?.[i] ?? 7000 + i,
      variant_id: (productIds?.[i] ?? 7000 + i) + 1000,
      title: `Item ${i}`,
    })),
    shipping_lines: [{ title: 'Standard', code: 'standard' }],
  };
}

async function shopify(
  store: string,
  topic: string,
  order: unknown,
  options: { eventId?: string; secret?: string } = {},
) {
  const body = JSON.stringify(order);
  const res = await fetch(`${gateway.url}${storeWebhookPath(store)}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-hmac-sha256': hmac(options.secret ?? SHOPIFY_SECRET, body),
      'x-shopify-shop-domain': `${store}.myshopify.com`,
      'x-shopify-api-version': '2025-10',
      'x-shopify-webhook-id': randomUUID(),
      'x-shopify-event-id': options.eventId ?? randomUUID(),
      'x-shopify-triggered-at': new Date().toISOString(),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const handleOf = (store: string, orderId: number | string) =>
  h.client.workflow.getHandle(orderWorkflowId(storeOrderNumber(store, String(orderId))));

const creates = async () =>
  takenCalls(await accountStats(h.account.openId), 'shopping/order/createOrderV3');

describe('Shopify orders in', () => {
  const shop = `shop-${tag}`;

  it('an orders/create webhook becomes a supplier order; the store order shows in status', async () => {
    const order = shopifyOrder(['SKU0001-BLACK', 'SKU0003-WHITE']);
    const answer = await shopify(shop, 'orders/create', order);
    expect(answer).toEqual({ status: 200, body: { outcome: 'started' } });
    const created = await reachStage(handleOf(shop, order.id), Stage.AWAITING_SHIPMENT);
    expect(created.svcOrderId).toMatch(/\w+/);
    expect(created.store).toEqual({
      connection: shop,
      platform: 'shopify',
      orderId: String(order.id),
      orderName: order.name,
    });
    const described = await handleOf(shop, order.id).describe();
    expect(await described.staticSummary()).toContain(order.name);
  });

  it('a re-delivery (same event id, or another event of the same order) starts nothing new', async () => {
    const order = shopifyOrder(['SKU0001-BLACK']);
    const eventId = randomUUID();
    expect((await shopify(shop, 'orders/create', order, { eventId })).body).toEqual({
      outcome: 'started',
    });
    const first = await handleOf(shop, order.id).describe();
    const again = await shopify(shop, 'orders/create', order, { eventId });
    expect(again.status).toBe(200);
    expect(['duplicate', 'existing']).toContain(again.body['outcome']);
    const paid = await shopify(shop, 'orders/paid', { ...order, updated_at: 'later' });
    expect(paid).toEqual({ status: 200, body: { outcome: 'existing' } });
    const now = await handleOf(shop, order.id).describe();
    expect(now.runId).toBe(first.runId);
    const done = await reachStage(handleOf(shop, order.id), Stage.AWAITING_SHIPMENT);
    expect(done.timeline.filter((t) => t.stage === Stage.CREATED)).toHaveLength(1);
  });

  it('a forged HMAC is refused (401) and starts nothing', async () => {
    const order = shopifyOrder(['SKU0001-BLACK']);
    const forged = await shopify(shop, 'orders/create', order, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    await expect(handleOf(shop, order.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await shopify('no-such-store', 'orders/create', order)).status).toBe(404);
  });

  it('an unmapped SKU stops the order before anything is bought; once mapped it goes on', async () => {
    const before = await creates();
    const order = shopifyOrder(['MERCHANT-OWN-SKU-1', 'SKU0001-BLACK']);
    expect((await shopify(shop, 'orders/create', order)).body).toEqual({ outcome: 'started' });
    const handle = handleOf(shop, order.id);
    const waiting = await reachStage(handle, Stage.AWAITING_MAPPING);
    expect(waiting.waitingFor).toContain('MERCHANT-OWN-SKU-1');
    expect(waiting.waitingFor).toContain(`dropflow store map ${shop}`);
    expect(await creates()).toBe(before);

    // What `dropflow store map` does once the mapping is written: find the store's waiting orders
    // by visibility and signal them.
    MAPPINGS.set(`${shop}/MERCHANT-OWN-SKU-1`, 'P0002-V1');
    const released = await eventually(
      'store map to find the waiting order',
      () => releaseWaiting(h.client, shop, 'default', 'MERCHANT-OWN-SKU-1'),
      (r) => r.signalled.includes(handle.workflowId),
    );
    expect(released.failed).toEqual([]);
    const created = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(created.svcOrderId).toMatch(/\w+/);
  });
});

describe('store products the supplier knows', () => {
  const shop = `shop-${tag}`;

  it('an order whose every product is connected at the supplier is created in the store flow, with no SKU looked up', async () => {
    const productId = Number(`${Date.now()}`.slice(-9));
    const api = h.account.client.api;
    await api.saveStoreProduct({
      id: String(productId),
      title: 'Store lamp',
      image: 'https://shop.example/lamp.jpg',
    });
    await connectAtSupplier(h.account.client, {
      storeProductId: String(productId),
      storeVariantId: String(productId + 1000),
      svcProductId: 'P0003',
      svcVariantId: 'P0003-V1',
    });
    const calls = async (path: string) => takenCalls(await accountStats(h.account.openId), path);
    const skuQueries = await calls('product/query');

    // The merchant's own SKU maps to nothing: only the connection can place this order.
    const order = shopifyOrder(['MERCHANT-LAMP-1'], [productId]);
    expect((await shopify(shop, 'orders/create', order)).body).toEqual({ outcome: 'started' });
    const created = await reachStage(handleOf(shop, order.id), Stage.AWAITING_SHIPMENT);
    expect(created.svcOrderId).toMatch(/\w+/);
    expect(created.flow).toBe('C+B');
    expect(created.timeline.map((t) => t.note).join('\n')).toContain(
      'every store product is connected at the supplier',
    );
    expect(await calls('product/query')).toBe(skuQueries);
  });
});

describe('store edits', () => {
  it('an edit made before one already taken, arriving late, is noted and not taken', async () => {
    const held = `held-${tag}`;
    const order = shopifyOrder(['SKU0001-BLACK']);
    expect((await shopify(held, 'orders/create', order)).body).toEqual({ outcome: 'started' });
    const handle = handleOf(held, order.id);
    await reachStage(handle, Stage.ON_HOLD);
    const edit = (address1: string, updatedAt: string) => ({
      ...order,
      updated_at: updatedAt,
      shipping_address: { ...order.shipping_address, address1 },
    });
    const notes = async () =>
      (await handle.query(statusQuery)).timeline.map((t) => t.note ?? '').join('\n');

    await shopify(held, 'orders/updated', edit('2 Newer Street', '2026-11-29T10:05:00-05:00'));
    await eventually('the newer edit is taken', notes, (n) => n.includes('amended'));
    // Made five minutes earlier, delivered later (Shopify does not keep webhooks in order).
    await shopify(held, 'orders/updated', edit('1 Older Street', '2026-11-29T10:00:00-05:00'));
    const after = await eventually('the older edit is noted', notes, (n) =>
      n.includes('came after a later one'),
    );
    expect(after.match(/amended/g)).toHaveLength(1);
    expect(after).toContain("the store's edit made 2026-11-29T10:00:00-05:00");
  });
});

describe('store cancellations', () => {
  it('inside the hold window: CANCELLED, and no supplier call', async () => {
    const held = `held-${tag}`;
    const before = await creates();
    const order = shopifyOrder(['SKU0001-BLACK']);
    expect((await shopify(held, 'orders/create', order)).body).toEqual({ outcome: 'started' });
    const handle = handleOf(held, order.id);
    const onHold = await reachStage(handle, Stage.ON_HOLD);
    expect(onHold.waitingFor).toContain('hold window');
    const cancelled = await shopify(held, 'orders/cancelled', {
      ...order,
      cancelled_at: new Date().toISOString(),
      cancel_reason: 'customer',
    });
    expect(cancelled.body).toEqual({ outcome: 'signalled' });
    const done = await reachStage(handle, Stage.CANCELLED);
    expect(done.svcOrderId).toBeUndefined();
    expect(done.timeline.at(-1)?.note).toContain('customer');
    expect(await creates()).toBe(before);
    // A late orders/create of the cancelled order starts nothing again.
    expect((await shopify(held, 'orders/create', order)).body).toEqual({ outcome: 'existing' });
    expect((await handle.query(statusQuery)).stage).toBe(Stage.CANCELLED);
  });

  it('after payment at the supplier: NEEDS_ATTENTION naming the refund and dispute path', async () => {
    const shop = `shop-${tag}`;
    const order = shopifyOrder(['SKU0003-WHITE']);
    expect((await shopify(shop, 'orders/create', order)).body).toEqual({ outcome: 'started' });
    const handle = handleOf(shop, order.id);
    await reachStage(handle, Stage.AWAITING_SHIPMENT);
    await shopify(shop, 'orders/cancelled', {
      ...order,
      cancelled_at: new Date().toISOString(),
      cancel_reason: 'customer',
    });
    const stopped = await reachStage(handle, Stage.NEEDS_ATTENTION);
    expect(stopped.error?.step).toBe('storeCancelled');
    expect(stopped.waitingFor).toContain('refund the customer in the store');
    expect(stopped.waitingFor).toContain('dropflow dispute open');
    expect(stopped.payId).toMatch(/\w+/);
  });
});

describe('WooCommerce orders in', () => {
  it('order.created of a paid order becomes a supplier order; a pending one waits', async () => {
    const woo = `woo-${tag}`;
    seq += 1;
    const id = seq;
    const order = {
      id,
      number: String(id),
      status: 'pending',
      currency: 'USD',
      date_modified_gmt: '2026-11-27T10:00:00',
      billing: { first_name: 'Ada', last_name: 'Example', email: 'ada@example.com' },
      shipping: {
        first_name: 'Ada',
        last_name: 'Example',
        address_1: '1 Example Street',
        city: 'Beverly Hills',
        state: 'CA',
        postcode: '90210',
        country: 'US',
      },
      line_items: [{ id: id * 10, sku: 'SKU0001-BLACK', quantity: 2, total: '60.00' }],
      shipping_lines: [{ method_title: 'Flat rate', method_id: 'flat_rate' }],
    };
    const send = async (topic: string, body: unknown, secret = WOO_SECRET) => {
      const raw = JSON.stringify(body);
      const res = await fetch(`${gateway.url}${storeWebhookPath(woo)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-wc-webhook-source': 'http://127.0.0.1:9/',
          'x-wc-webhook-topic': topic,
          'x-wc-webhook-resource': 'order',
          'x-wc-webhook-event': topic.split('.')[1]!,
          'x-wc-webhook-signature': hmac(secret, raw),
          'x-wc-webhook-id': '7',
          'x-wc-webhook-delivery-id': randomUUID(),
        },
        body: raw,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await send('order.created', order, 'forged')).status).toBe(401);
    expect((await send('order.created', order)).body).toEqual({
      outcome: 'waiting-for-payment',
    });
    expect((await send('order.updated', { ...order, status: 'processing' })).body).toEqual({
      outcome: 'started',
    });
    const created = await reachStage(handleOf(woo, id), Stage.AWAITING_SHIPMENT);
    expect(created.store?.orderName).toBe(`#${id}`);
  });
});
