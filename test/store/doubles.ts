/**
 * The store doubles for a test file (tools/src/storeDoubles): a Shopify shop and a WooCommerce
 * site on loopback, with connections to them as the registry would hold them, and store events
 * as an order's outbox would deliver them.
 */
import { afterAll, beforeAll } from 'vitest';

import {
  startShopifyDouble,
  startWooDouble,
  type StartedShopifyDouble,
  type StartedWooDouble,
} from '../../tools/src/storeDoubles/index.js';
import type { StoreOrderRef } from '../../src/store/contract.js';
import type { Store } from '../../src/accounts/contract.js';
import type { StoreEvent } from '../../src/storeEvents/contract.js';
import type { StoreLookup } from '../../src/storeEvents/storeDelivery.js';

export interface StoreDoubles {
  shopify: StartedShopifyDouble;
  woo: StartedWooDouble;
  shopifyConnection: Extract<Store, { platform: 'shopify' }>;
  wooConnection: Extract<Store, { platform: 'woocommerce' }>;
  directory: StoreLookup;
}

export function useStoreDoubles(): () => StoreDoubles {
  let doubles: StoreDoubles | undefined;
  beforeAll(async () => {
    const shopify = await startShopifyDouble({ accessToken: 'shpat_test', clientSecret: 'shh' });
    const woo = await startWooDouble({ consumerKey: 'ck_test', consumerSecret: 'cs_test' });
    const shopifyConnection = {
      id: 'shop-1',
      account: 'default',
      platform: 'shopify' as const,
      apiBaseUrl: `${shopify.url}/admin/api/2025-10`,
      shopDomain: shopify.double.shopDomain,
      apiVersion: '2025-10',
      orderTrigger: 'orders/paid' as const,
      notifyCustomer: true,
      secrets: { adminAccessToken: 'shpat_test', clientSecret: 'shh' },
    };
    const wooConnection = {
      id: 'woo-1',
      account: 'default',
      platform: 'woocommerce' as const,
      apiBaseUrl: `${woo.url}/wp-json/wc/v3`,
      siteUrl: woo.url,
      orderTrigger: 'orders/paid' as const,
      notifyCustomer: true,
      secrets: { consumerKey: 'ck_test', consumerSecret: 'cs_test', webhookSecret: 'w' },
    };
    const all = new Map<string, Store>([
      [shopifyConnection.id, shopifyConnection],
      [wooConnection.id, wooConnection],
    ]);
    doubles = {
      shopify,
      woo,
      shopifyConnection,
      wooConnection,
      directory: { store: (id) => all.get(id) },
    };
  });
  afterAll(async () => {
    await doubles?.shopify.close();
    await doubles?.woo.close();
  });
  return () => {
    if (doubles === undefined) throw new Error('the store doubles start in beforeAll');
    return doubles;
  };
}

let seq = 0;

export function event<T extends StoreEvent['type']>(
  type: T,
  data: Extract<StoreEvent, { type: T }>['data'],
  orderNumber = 'STORE-1',
): StoreEvent {
  seq += 1;
  return {
    id: `evt_${seq}`,
    type,
    occurredAt: new Date().toISOString(),
    orderNumber,
    stage: 'SHIPPED',
    data,
  } as StoreEvent;
}

/** A store reference for a Shopify order made on the double. */
export function shopifyRef(order: {
  id: number;
  name: string;
  lineItems: { id: number; quantity: number }[];
}): StoreOrderRef {
  return {
    connection: 'shop-1',
    platform: 'shopify',
    orderId: String(order.id),
    orderName: order.name,
    lines: order.lineItems.map((li, i) => ({
      storeLineId: String(li.id),
      vid: `V${i + 1}`,
      quantity: li.quantity,
    })),
  };
}

export function wooRef(order: {
  id: number;
  number: string;
  line_items: { id: number; quantity: number }[];
}): StoreOrderRef {
  return {
    connection: 'woo-1',
    platform: 'woocommerce',
    orderId: String(order.id),
    orderName: `#${order.number}`,
    lines: order.line_items.map((li, i) => ({
      storeLineId: String(li.id),
      vid: `V${i + 1}`,
      quantity: li.quantity,
    })),
  };
}

export const twoLines = [
  { sku: 'MUG-RED', quantity: 1, price: '12.00' },
  { sku: 'TEE-M', quantity: 2, price: '19.00' },
];
