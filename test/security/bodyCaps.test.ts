/**
 * Door: bodies. A stranger must not make the gateway read a 1 MiB webhook body, the supplier's or
 * a store's, before it is told 404 (no such account or store connection) or 401 (no signature):
 * those answers come from the headers alone, while the body is still on its way. A supplier or a
 * store's site (or something posing as one) must not make a worker's memory grow with an endless
 * response: beyond the client's cap the body is not read on, and the call fails with a clear error.
 */
import { once } from 'node:events';
import {
  createServer,
  request,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OrderTrigger, type Store } from '../../src/accounts/contract.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { STORE_MESSAGE_MAX, StoreApiError, StoreFailure } from '../../src/store/apiError.js';
import { storeWebhookPath } from '../../src/store/contract.js';
import { MAX_STORE_RESPONSE_BYTES } from '../../src/store/http.js';
import { WooRest } from '../../src/store/woocommerce/rest.js';
import { getAccessToken } from '../../src/supplier/api/auth.js';
import { SupplierTransportError } from '../../src/supplier/errors.js';
import { DEFAULT_HTTP_OPTIONS, MAX_RESPONSE_BYTES, SupplierHttp } from '../../src/supplier/http.js';
import { useIntakeGateway } from './intakeGateway.js';

const MiB = 1024 * 1024;
const SHOP: Store = {
  id: 'sec-bodies-shop',
  account: 'default',
  platform: 'shopify',
  apiBaseUrl: 'http://127.0.0.1:9/admin/api/2025-10',
  shopDomain: 'sec-bodies-shop.myshopify.com',
  apiVersion: '2025-10',
  orderTrigger: OrderTrigger.Created,
  notifyCustomer: true,
  secrets: { adminAccessToken: 'shpat_test', clientSecret: 'shopify-client-secret' },
};
const WOO: Store = {
  id: 'sec-bodies-woo',
  account: 'default',
  platform: 'woocommerce',
  apiBaseUrl: 'http://127.0.0.1:9/wp-json/wc/v3',
  siteUrl: 'http://127.0.0.1:9',
  orderTrigger: OrderTrigger.Paid,
  notifyCustomer: true,
  secrets: { consumerKey: 'ck_test', consumerSecret: 'cs_test', webhookSecret: 'woo-secret' },
};
const STORES = new Map([SHOP, WOO].map((s) => [s.id, s]));
const g = useIntakeGateway('sec-bodies', {
  accounts: staticAccountDirectory([]),
  extra: {
    stores: {
      store: (id) => STORES.get(id),
      stores: () => [...STORES.values()],
      mappedVid: () => undefined,
    },
  },
});

/**
 * Sends the headers of a 1 MiB push and its first KiB, and waits for the answer without sending
 * the rest: only an answer that needs no body can come.
 */
async function pushWithoutBody(path: string, headers: Record<string, string> = {}) {
  const url = new URL(path, g.gateway.url);
  const req = request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(MiB), ...headers },
  });
  req.write(Buffer.alloc(1024, 0x20));
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.resume();
  req.destroy();
  return { status: res.statusCode, connection: res.headers.connection };
}

describe('an unauthenticated webhook post is refused before its body is read', () => {
  it('to an account the gateway does not know: 404 from the headers alone', async () => {
    expect(await pushWithoutBody('/webhooks/no-such-shop')).toEqual({
      status: 404,
      connection: 'close',
    });
  });

  it('without a signature: 401 from the headers alone', async () => {
    expect(await pushWithoutBody('/webhooks/supplier')).toEqual({
      status: 401,
      connection: 'close',
    });
  });

  it("to a store connection it does not know, or without the platform's signature: 404 or 401 from the headers alone", async () => {
    const refused = (status: number) => ({ status, connection: 'close' });
    expect(await pushWithoutBody(storeWebhookPath('no-such-store'))).toEqual(refused(404));
    expect(await pushWithoutBody(storeWebhookPath('Not_A_Connection'))).toEqual(refused(404));
    const shopify = { 'x-shopify-topic': 'orders/create' };
    expect(await pushWithoutBody(storeWebhookPath(SHOP.id), shopify)).toEqual(refused(401));
    const woo = { 'x-wc-webhook-topic': 'order.created' };
    expect(await pushWithoutBody(storeWebhookPath(WOO.id), woo)).toEqual(refused(401));
  });

  it('but the unsigned ping WooCommerce sends when a webhook is saved is still answered', async () => {
    const ping = await fetch(new URL(storeWebhookPath(WOO.id), g.gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'webhook_id=42',
    });
    expect({ status: ping.status, body: await ping.json() }).toEqual({
      status: 200,
      body: { outcome: 'ignored' },
    });
  });
});

/** A local HTTP server answering with `answer` for the file's `describe`; `url()` once listening. */
function useLocalSite(answer: RequestListener): () => string {
  let server: Server | undefined;
  let url = '';
  beforeAll(async () => {
    server = createServer(answer);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });
  return () => url;
}

describe("a response larger than the client's cap", () => {
  /** The bytes the last answer wrote before it was cut off. */
  let written = 0;
  // Answers with an endless JSON string, chunked (no length to refuse it by up front).
  const siteUrl = useLocalSite((_req, res) => {
    written = 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    res.write('{"code":200,"data":"');
    const more = (): void => {
      while (!res.destroyed && written < 64 * MiB) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      if (!res.destroyed) res.end('"}');
    };
    more();
  });

  it("a supplier's is not read on: the call fails naming the cap, and the server is cut off", async () => {
    const cap = MiB;
    const http = new SupplierHttp(siteUrl(), { ...DEFAULT_HTTP_OPTIONS, maxResponseBytes: cap });
    try {
      const call = http.send(getAccessToken, { apiKey: 'k' });
      await expect(call).rejects.toBeInstanceOf(SupplierTransportError);
      await expect(call).rejects.toThrow(`response body over the cap of ${cap} bytes`);
      expect(written).toBeLessThan(64 * MiB);
    } finally {
      await http.close();
    }
  });

  it("the supplier's client has a cap by default", () => {
    expect(MAX_RESPONSE_BYTES).toBe(8 * MiB);
  });

  it("a store's is not read on: the call fails as unavailable (tried again later), naming the cap", async () => {
    const site = new URL(siteUrl());
    // No second try within the call (a read's tries again would only send it again).
    const woo = new WooRest(
      { apiBaseUrl: `${siteUrl()}/wp-json/wc/v3`, consumerKey: 'ck', consumerSecret: 'cs' },
      { maxRetryWaitMs: 0 },
    );
    await expect(woo.get('/wc/v3/orders/1')).rejects.toMatchObject({
      kind: StoreFailure.Unavailable,
      message: `woocommerce ${site.host}: an answer over the cap of ${MAX_STORE_RESPONSE_BYTES} bytes; not read further`,
    });
    expect(MAX_STORE_RESPONSE_BYTES).toBe(8 * MiB);
    expect(written).toBeLessThan(64 * MiB);
  });
});

describe("a store's error text", () => {
  // A site that refuses with a message of 1 MiB, control characters included.
  const siteUrl = useLocalSite((_req, res) => {
    const message = `denied\u001b[31m${'x'.repeat(MiB)}`;
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'woocommerce_rest_cannot_view', message }));
  });

  it("is kept short and plain: it goes into the order's history, its status and the logs", async () => {
    const woo = new WooRest(
      { apiBaseUrl: `${siteUrl()}/wp-json/wc/v3`, consumerKey: 'ck', consumerSecret: 'cs' },
      { maxRetryWaitMs: 0 },
    );
    const refused = await woo.get('/wc/v3/orders/1').then(
      () => undefined,
      (err: unknown) => err as StoreApiError,
    );
    expect(refused).toBeInstanceOf(StoreApiError);
    expect(refused!.kind).toBe(StoreFailure.Auth);
    expect(refused!.message).toContain('denied');
    expect(refused!.message.length).toBeLessThanOrEqual(STORE_MESSAGE_MAX + 1);
    expect(refused!.message).not.toMatch(/[\u0000-\u001f]/);
  });
});
