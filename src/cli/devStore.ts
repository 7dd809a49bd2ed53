/**
 * The store of `dropflow dev` (docs/store-shopify.md, "Trying it with dropflow dev"): a Shopify
 * double on loopback, connected in the dev's registry as store `dev-shop` of the default account,
 * so that a store order placed on it is fulfilled through the sandbox and its tracking comes back
 * as the double's fulfillments. Its token and client secret are made anew at every start and
 * never printed; the connection is written again each time (the double forgets its orders when it
 * stops, and starts its ids where no earlier run's can be, so no order of a previous run is taken
 * for a re-delivery).
 */
import { randomBytes } from 'node:crypto';

import { addStore, listStores } from '../accounts/storeEdits.js';
import type { Config } from '../config/environment.js';
import { isLoopbackHost } from '../net/outboundUrl.js';
import { storeOrderNumber, storeWebhookPath } from '../store/contract.js';
import { loadStoreDoubles } from './devtools.js';

export const DEV_STORE_ID = 'dev-shop';
export const DEV_STORE_PORT = 8788;
const DEV_SHOP_DOMAIN = 'dropflow-dev.myshopify.com';
const API_VERSION = '2025-10';

export interface DevStore {
  url: string;
  /** From now on, the double's order webhooks go to this gateway. */
  connect(gatewayUrl: string): void;
  close(): Promise<void>;
}

export type DevStoreStart = { ok: true; store: DevStore } | { ok: false; why: string };

/**
 * Starts the double on 127.0.0.1:`port` and connects it; refuses to replace a `dev-shop` the
 * operator made for a store that is not on loopback.
 */
export async function startDevStore(config: Config, port: number): Promise<DevStoreStart> {
  const existing = (await listStores(config)).find((s) => s.id === DEV_STORE_ID);
  if (existing !== undefined && !isLoopbackHost(new URL(existing.apiBaseUrl).hostname)) {
    return {
      ok: false,
      why: `the registry's store ${DEV_STORE_ID} is not a dev double (${new URL(existing.apiBaseUrl).host}): left as it is`,
    };
  }
  const { startShopifyDouble } = await loadStoreDoubles('dropflow dev');
  const secrets = {
    adminAccessToken: `shpat_${randomBytes(16).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
  const started = await startShopifyDouble({
    port,
    shopDomain: DEV_SHOP_DOMAIN,
    apiVersion: API_VERSION,
    accessToken: secrets.adminAccessToken,
    clientSecret: secrets.clientSecret,
    // Ids of microseconds since 1970: a later run's are above every id an earlier run gave.
    firstId: Date.now() * 1000,
  });
  try {
    await addStore(
      config,
      {
        id: DEV_STORE_ID,
        platform: 'shopify',
        apiBaseUrl: `${started.url}/admin/api/${API_VERSION}`,
        shopDomain: DEV_SHOP_DOMAIN,
        apiVersion: API_VERSION,
        secrets,
      },
      { update: existing !== undefined },
    );
  } catch (err) {
    await started.close();
    throw err;
  }
  return {
    ok: true,
    store: {
      url: started.url,
      connect: (gatewayUrl) => {
        started.double.webhookUrl = `${gatewayUrl}${storeWebhookPath(DEV_STORE_ID)}`;
      },
      close: () => started.close(),
    },
  };
}

/** What the banner says of the dev store (or why there is none), and how to order on it. */
export function devStoreBanner(
  store: DevStoreStart | undefined,
  offBecause: string,
): { line: string; tryIt: string[] } {
  if (store === undefined) return { line: `off (${offBecause})`, tryIt: [] };
  if (!store.ok) return { line: `off: ${store.why}`, tryIt: [] };
  const { url } = store.store;
  return {
    line: `Shopify double ${url}  (store ${DEV_STORE_ID} of the default account; webhooks to the gateway)`,
    tryIt: [
      'Try a store order: placed on the Shopify double, fulfilled through the sandbox, tracking back in the store:',
      `  curl -s -X POST ${url}/__shopify/orders -H 'content-type: application/json' --data @examples/store-order-shopify.json`,
      `  npx dropflow status ${storeOrderNumber(DEV_STORE_ID, '<id>')}     (<id>: the "id" the curl answered)`,
      `  curl -s ${url}/__shopify/orders/<id>     (its "fulfillments": tracking written back to the store)`,
    ],
  };
}
