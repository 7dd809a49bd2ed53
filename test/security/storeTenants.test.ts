/**
 * Doors of the store connections. A connection holds a store's admin credentials and its webhook
 * secret; what it writes and what its webhooks move must be its own store orders only:
 * - the order intake does not take `store`: naming another tenant's connection there made the
 *   order's tracking and notes go into that tenant's store, with that store's credentials;
 * - an order's events are written to a store only when the connection itself started the order
 *   (the connection's account, its order number `<connection>-<store order id>`);
 * - a store order id is the platform's number: connection `shop`'s webhook for order `eu-7` named
 *   `shop-eu-7`, which is connection `shop-eu`'s order 7;
 * - the topic header is not signed: a signed order body sent again under a cancelling topic does
 *   not cancel the order.
 * Real gateway and dev server (no workers: what these doors let through shows in a history), real
 * store doubles for the writes.
 */
import { readFile } from 'node:fs/promises';

import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';

import {
  DEFAULT_ACCOUNT,
  OrderTrigger,
  type Account,
  type Store,
  type StoreDirectory,
} from '../../src/accounts/contract.js';
import { intakeTokenHash } from '../../src/accounts/registryFile.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { ORDER_WORKFLOW, orderWorkflowId } from '../../src/order/contract.js';
import {
  storeOrderNumber,
  storeWebhookPath,
  type StoreOrderRef,
} from '../../src/store/contract.js';
import { storeEventActivities } from '../../src/storeEvents/activities.js';
import type { StoreEvent } from '../../src/storeEvents/contract.js';
import { hmac } from '../gateway/support.js';
import { event, shopifyRef, twoLines, useStoreDoubles } from '../store/doubles.js';
import { orderNumber } from '../supplier/orderHelpers.js';
import { useIntakeGateway } from './intakeGateway.js';

const TOKEN_A = 'sec-stores-token-of-tenant-a-0123456789';
const SHOPIFY_SECRET = 'sec-stores-shopify-client-secret';
const WOO_SECRET = 'sec-stores-woo-webhook-secret';

const account = (id: string, tokens: string[] = []): Account => ({
  id,
  tier: 1,
  apiKey: `key-of-${id}`,
  intakeTokenSha256: tokens.map(intakeTokenHash),
});

const shopify = (id: string, owner: string): Store => ({
  id,
  account: owner,
  platform: 'shopify',
  apiBaseUrl: 'https://127.0.0.1:9/admin/api/2025-10',
  shopDomain: `${id}.myshopify.com`,
  apiVersion: '2025-10',
  orderTrigger: OrderTrigger.Paid,
  notifyCustomer: true,
  secrets: { adminAccessToken: 'shpat_test', clientSecret: SHOPIFY_SECRET },
});

const woo = (id: string): Store => ({
  id,
  account: DEFAULT_ACCOUNT,
  platform: 'woocommerce',
  apiBaseUrl: 'https://127.0.0.1:9/wp-json/wc/v3',
  siteUrl: 'https://127.0.0.1:9',
  orderTrigger: OrderTrigger.Paid,
  notifyCustomer: true,
  secrets: { consumerKey: 'ck_test', consumerSecret: 'cs_test', webhookSecret: WOO_SECRET },
});

const tag = Date.now().toString(36);
const B_SHOP = `b-shop-${tag}`;
const SHOP = `shop-${tag}`;
const SHOP_EU = `shop-${tag}-eu`;
const SH = `sh-${tag}`;
const STORES = new Map<string, Store>(
  [shopify(B_SHOP, 'tenant-b'), woo(SHOP), woo(SHOP_EU), shopify(SH, DEFAULT_ACCOUNT)].map((s) => [
    s.id,
    s,
  ]),
);
const stores: StoreDirectory = {
  store: (id) => STORES.get(id),
  stores: () => [...STORES.values()],
  mappedVid: () => undefined,
};

const g = useIntakeGateway('sec-stores', {
  accounts: staticAccountDirectory([
    account(DEFAULT_ACCOUNT),
    account('tenant-a', [TOKEN_A]),
    account('tenant-b'),
  ]),
  extra: { stores },
});
const doubles = useStoreDoubles();

/** A signed webhook of connection `store`, under `topic`. */
async function webhook(store: Store, topic: string, body: unknown) {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> =
    store.platform === 'shopify'
      ? {
          'x-shopify-topic': topic,
          'x-shopify-hmac-sha256': hmac(SHOPIFY_SECRET, raw),
          'x-shopify-event-id': `${topic}-${Math.random()}`,
        }
      : {
          'x-wc-webhook-topic': topic,
          'x-wc-webhook-signature': hmac(WOO_SECRET, raw),
          'x-wc-webhook-delivery-id': String(Math.random()),
        };
  const res = await fetch(`${g.gateway.url}${storeWebhookPath(store.id)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A run under the id of a store order, on a queue no worker polls: its history shows any signal. */
async function storeOrderRun(connection: string, storeOrderId: string): Promise<string> {
  const workflowId = orderWorkflowId(storeOrderNumber(connection, storeOrderId));
  await g.client.workflow.start(ORDER_WORKFLOW, {
    workflowId,
    taskQueue: g.queues.orders,
    args: [],
  });
  expect(await g.exists(workflowId)).toBe(true);
  return workflowId;
}

async function signalsTo(workflowId: string): Promise<number> {
  const history = await g.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
}

const address = {
  first_name: 'Ada',
  last_name: 'Example',
  address_1: '1 Example Street',
  city: 'Beverly Hills',
  state: 'CA',
  postcode: '90210',
  country: 'US',
};

/** A paid, not cancelled order as Shopify's webhooks carry it. */
const shopifyBody = (id: number | string) => ({
  id,
  name: '#1001',
  currency: 'USD',
  financial_status: 'paid',
  cancelled_at: null,
  shipping_address: {
    name: 'Ada Example',
    address1: '1 Example Street',
    city: 'Beverly Hills',
    province: 'California',
    country: 'United States',
    country_code: 'US',
    zip: '90210',
  },
  line_items: [{ id: 11, sku: 'MUG-RED', quantity: 1, price: '12.00' }],
});

/** A paid, processing order as WooCommerce's webhooks carry it. */
const wooBody = (id: number) => ({
  id,
  number: String(id),
  status: 'processing',
  currency: 'USD',
  date_paid_gmt: '2026-11-29T10:00:00',
  billing: address,
  shipping: address,
  line_items: [{ id: 11, sku: 'MUG-RED', quantity: 1, price: 12 }],
});

describe("a tenant cannot make dropflow write into another tenant's store", () => {
  it('POST /v1/orders refuses `store`, naming the field, and starts nothing', async () => {
    const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as object;
    const number = orderNumber('st');
    const res = await fetch(`${g.gateway.url}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        ...order,
        orderNumber: number,
        account: 'tenant-a',
        store: {
          connection: B_SHOP,
          platform: 'shopify',
          orderId: '5001',
          orderName: '#5001',
          lines: [{ storeLineId: '1', vid: 'P0001-V1', quantity: 1 }],
        },
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: [{ field: 'store', rule: expect.stringContaining('store connection') as string }],
    });
    expect(await g.exists(orderWorkflowId(number, 'tenant-a'))).toBe(false);
  });

  it("an order's events reach a store only when its connection started the order", async () => {
    const { shopify: shop, directory } = doubles();
    const activities = storeEventActivities({ retryFirstMs: 1_000, retryMaxMs: 60_000 }, directory);
    const deliver = (store: StoreOrderRef, e: StoreEvent, account?: string) =>
      new MockActivityEnvironment().run((input) => activities.deliverStoreEvent(input), {
        event: e,
        attempt: 1,
        store,
        ...(account !== undefined && { account }),
      });
    const order = await shop.double.createOrder({ lines: twoLines });
    const ref = shopifyRef(order); // shop-1, a connection of the default account
    const own = storeOrderNumber(ref.connection, ref.orderId);
    const shipped = (number: string) =>
      event('order.shipped', { trackNumber: 'YT900', carrier: 'USPS' }, number);

    // Another account's order, even under the store order's own number.
    expect(await deliver(ref, shipped(own), 'tenant-a')).toMatchObject({
      outcome: 'failed',
      reason: 'store-not-its-order',
    });
    // The connection's account, but an order it did not start.
    expect(await deliver(ref, shipped('ANY-ORDER-1'))).toMatchObject({
      outcome: 'failed',
      reason: 'store-not-its-order',
    });
    expect(shop.double.order(order.id)!.fulfillments).toEqual([]);

    // The connection's own order is written.
    expect(await deliver(ref, shipped(own))).toMatchObject({ outcome: 'delivered' });
    expect(shop.double.order(order.id)!.fulfillments).toHaveLength(1);
  });
});

describe("a store's webhook reaches its own connection's orders only", () => {
  it('WooCommerce: `shop`\'s order.deleted for "eu-7" does not reach shop-eu\'s order 7', async () => {
    const theirs = await storeOrderRun(SHOP_EU, '7');
    const answer = await webhook(STORES.get(SHOP)!, 'order.deleted', { id: 'eu-7' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ field: 'id' }] });
    expect(await signalsTo(theirs)).toBe(0);
  });

  it("Shopify: an order id that is not the platform's number is refused", async () => {
    const answer = await webhook(STORES.get(SH)!, 'orders/cancelled', {
      ...shopifyBody('eu:w-9'),
      cancelled_at: '2026-11-29T10:00:00Z',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ field: 'id' }] });
  });
});

describe('a signed order body sent again under a cancelling topic cancels nothing', () => {
  it('Shopify: orders/cancelled over a body whose cancelled_at is null', async () => {
    const id = 7001;
    const run = await storeOrderRun(SH, String(id));
    const answer = await webhook(STORES.get(SH)!, 'orders/cancelled', shopifyBody(id));
    expect(answer).toEqual({ status: 200, body: { outcome: 'existing' } });
    expect(await signalsTo(run)).toBe(0);
  });

  it('WooCommerce: order.deleted over a whole order that is not cancelled', async () => {
    const id = 7002;
    const run = await storeOrderRun(SHOP, String(id));
    const answer = await webhook(STORES.get(SHOP)!, 'order.deleted', wooBody(id));
    expect(answer).toEqual({ status: 200, body: { outcome: 'existing' } });
    expect(await signalsTo(run)).toBe(0);
  });
});
