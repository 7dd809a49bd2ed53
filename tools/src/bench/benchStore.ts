/**
 * The store of a `dropflow bench orders --store` phase: a store double (tools/src/storeDoubles)
 * on loopback, the connection the phase's account holds to it in the registry file, written as
 * `dropflow store add` and `dropflow store map` write it, and store orders placed on it. The double
 * sends each order's webhooks, signed as the platform signs them, to the phase's gateway; the
 * workers write the tracking back to it.
 */
import { randomBytes } from 'node:crypto';

import { addStore, mapSkus, type StoreInput } from 'dropflow/accounts';
import { loadConfig } from 'dropflow/config';
import { storeOrderNumber, storeWebhookPath } from 'dropflow/contracts/store';
import {
  startShopifyDouble,
  startWooDouble,
  type StartedShopifyDouble,
  type StartedWooDouble,
} from '../storeDoubles/index.js';
import { BenchStorePlatform, type StoreSeen } from './storeFigures.js';

/** The shop's two products, mapped to the variants of examples/order-flow-b.json. */
const PRODUCTS = [
  { sku: 'BENCH-MUG', vid: 'P0001-V1', title: 'Mug', quantity: 2, price: '59.00' },
  { sku: 'BENCH-TEE', vid: 'P0003-V2', title: 'Tee', quantity: 1, price: '79.00' },
] as const;

const SHOPIFY_API_VERSION = '2025-10';

export interface PhaseStore {
  platform: BenchStorePlatform;
  connection: string;
  /** A customer orders (paid); resolves with the dropflow order number once its webhooks were sent. */
  place(): Promise<string>;
  seen(): StoreSeen;
  close(): Promise<void>;
}

export interface PhaseStoreOptions {
  /** The connection's id (unique per phase: it names the phase's orders). */
  connection: string;
  /** The workers' environment: its registry file and payload key. */
  env: NodeJS.ProcessEnv;
  gatewayUrl: string;
}

const secret = () => randomBytes(16).toString('hex');
const lines = () =>
  PRODUCTS.map(({ sku, title, quantity, price }) => ({ sku, title, quantity, price }));

/** One platform's double, as the phase uses it. */
interface BenchDouble {
  /** The connection `dropflow store add` makes to it, secrets included. */
  connection: Omit<StoreInput, 'id'>;
  /** A paid customer order; resolves with its store id once its webhooks were sent. */
  createOrder(): Promise<number>;
  seen(): StoreSeen;
  close(): Promise<void>;
}

export async function startPhaseStore(
  platform: BenchStorePlatform,
  o: PhaseStoreOptions,
): Promise<PhaseStore> {
  const webhookUrl = `${o.gatewayUrl}${storeWebhookPath(o.connection)}`;
  const double =
    platform === BenchStorePlatform.shopify
      ? await shopifyDouble(webhookUrl)
      : await wooDouble(webhookUrl);
  try {
    const config = loadConfig(o.env);
    await addStore(config, { id: o.connection, ...double.connection });
    await mapSkus(
      config,
      o.connection,
      PRODUCTS.map(({ sku, vid }) => ({ sku, vid })),
    );
  } catch (err) {
    await double.close();
    throw err;
  }
  return {
    platform,
    connection: o.connection,
    place: async () => storeOrderNumber(o.connection, String(await double.createOrder())),
    seen: () => double.seen(),
    close: () => double.close(),
  };
}

async function shopifyDouble(webhookUrl: string): Promise<BenchDouble> {
  const secrets = { adminAccessToken: `shpat_${secret()}`, clientSecret: secret() };
  const shop: StartedShopifyDouble = await startShopifyDouble({
    accessToken: secrets.adminAccessToken,
    clientSecret: secrets.clientSecret,
    apiVersion: SHOPIFY_API_VERSION,
    webhookUrl,
  });
  const double = shop.double;
  return {
    connection: {
      platform: BenchStorePlatform.shopify,
      apiBaseUrl: `${shop.url}/admin/api/${SHOPIFY_API_VERSION}`,
      shopDomain: double.shopDomain,
      apiVersion: SHOPIFY_API_VERSION,
      secrets,
    },
    createOrder: async () => (await double.createOrder({ lines: lines(), paid: true })).id,
    seen: () => ({
      requests: double.stats.requests,
      byKind: { ...double.stats.byField },
      refused: double.stats.throttled,
      webhooks: [...double.sent],
      fulfillments: [...double.shop.orders.values()].flatMap((order) =>
        order.fulfillments
          .filter((f) => f.status === 'SUCCESS')
          .map((f) => ({
            storeOrderId: order.id,
            trackNumber: f.trackingInfo[0]?.number ?? undefined,
            at: Date.parse(f.createdAt),
          })),
      ),
    }),
    close: () => shop.close(),
  };
}

async function wooDouble(webhookUrl: string): Promise<BenchDouble> {
  const secrets = {
    consumerKey: `ck_${secret()}`,
    consumerSecret: `cs_${secret()}`,
    webhookSecret: secret(),
  };
  const site: StartedWooDouble = await startWooDouble({ ...secrets, webhookUrl });
  const double = site.double;
  return {
    connection: { platform: BenchStorePlatform.woocommerce, siteUrl: site.url, secrets },
    createOrder: async () => (await double.createOrder({ lines: lines(), paid: true })).id,
    seen: () => ({
      requests: double.stats.requests,
      byKind: { ...double.stats.byRoute },
      refused: double.stats.limited,
      webhooks: [...double.sent],
      fulfillments: [...double.site.trackings].flatMap(([storeOrderId, trackings]) =>
        trackings.map((t) => ({
          storeOrderId,
          trackNumber: t.tracking_number,
          at: double.site.trackingAddedAt.get(t.tracking_id) ?? Number.NaN,
        })),
      ),
    }),
    close: () => site.close(),
  };
}
