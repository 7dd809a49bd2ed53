/**
 * Webhook management and delivery against the sandbox: callback registration, product
 * subscriptions, signed pushes with retries, and the supplier's refusals.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type StartedSandbox } from '../../tools/src/sandbox/server.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode, SupplierError, SupplierRequestInvalid } from '../../src/supplier/errors.js';
import { parseWebhookMessage } from '../../src/supplier/webhookMessages.js';
import {
  accountStats,
  newSandboxAccount,
  sandboxUrl,
  type TestAccount,
} from '../support/sandbox.js';

interface Push {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 unless told otherwise. */
async function startReceiver() {
  const pushes: Push[] = [];
  const statuses: number[] = [];
  const waiters: { count: number; resolve: (pushes: Push[]) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      pushes.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200).end();
      for (const w of waiters.filter((w) => pushes.length >= w.count)) w.resolve(pushes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/supplier`,
    pushes,
    /** Status codes for the next pushes, in order. */
    answerNext: (...codes: number[]) => {
      statuses.push(...codes);
    },
    /** Resolves once `count` pushes have arrived in all. */
    received: (count: number) =>
      new Promise<Push[]>((resolve) => {
        if (pushes.length >= count) resolve(pushes);
        else waiters.push({ count, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

async function catalogueEvent(event: { pid: string; kind: string; openId: string }) {
  const res = await fetch(`${sandboxUrl()}/__sandbox/catalogue/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  expect(res.status).toBe(202);
  return (await res.json()) as { messages: { openId: string; messageId: string }[] };
}

/** The signature computed here, independently of src/. */
const hmac = (openId: string, body: string) =>
  createHmac('sha256', openId).update(body, 'utf8').digest('base64');

async function supplierError(p: Promise<unknown>): Promise<SupplierError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SupplierError);
  return err as SupplierError;
}

describe('webhook delivery (shared sandbox, local callbacks allowed)', () => {
  let account: TestAccount;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    account = await newSandboxAccount();
    receiver = await startReceiver();
    const set = await account.client.api.setWebhooks({
      product: { type: 'ENABLE', callbackUrls: [receiver.url] },
      stock: { type: 'ENABLE', callbackUrls: [receiver.url] },
    });
    expect(set).toBe(true);
  });

  afterAll(async () => {
    await account.client.close();
    await receiver.close();
  });

  it('subscribes existing products and reports unknown or repeated ones as failed', async () => {
    const first = await account.client.api.subscribeProducts({ productIds: ['P0001', 'P9999'] });
    expect(first.successProductIds).toEqual(['P0001']);
    expect(first.failProductIds).toEqual(['P9999']);

    const again = await account.client.api.subscribeProducts({ productIds: ['P0001'] });
    expect(again.successProductIds).toEqual([]);
    expect(again.failProductIds).toEqual(['P0001']);

    const list = await account.client.api.listProductSubscriptions({ productId: 'P0001' });
    expect(list.totalRecords).toBe(1);
    expect(list.content[0]).toMatchObject({ productId: 'P0001', sku: 'SKU0001', status: true });
  });

  it('pushes a signed product change that parses as a PRODUCT message', async () => {
    const { messages } = await catalogueEvent({
      pid: 'P0001',
      kind: 'PRODUCT',
      openId: account.openId,
    });
    expect(messages).toHaveLength(1);

    const [push] = await receiver.received(1);
    expect(push?.headers['content-type']).toBe('application/json');
    expect(push?.headers.sign).toBe(hmac(account.openId, push?.body ?? ''));

    const parsed = parseWebhookMessage(JSON.parse(push?.body ?? '') as unknown);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.message.type).toBe('PRODUCT');
    expect(parsed.message.messageId).toBe(messages[0]?.messageId);
    expect(parsed.message.params).toMatchObject({ pid: 'P0001', fields: ['productSellPrice'] });

    await vi.waitFor(async () => {
      expect((await accountStats(account.openId)).webhooksDelivered).toBe(1);
    });
  });

  it('retries a refused push with the same messageId and body, counting one delivery', async () => {
    const before = receiver.pushes.length;
    receiver.answerNext(500, 500);
    await catalogueEvent({ pid: 'P0001', kind: 'STOCK', openId: account.openId });

    const pushes = (await receiver.received(before + 3)).slice(before);
    expect(pushes).toHaveLength(3);
    expect(new Set(pushes.map((p) => p.body)).size).toBe(1);
    const body = pushes[0]?.body ?? '';
    for (const p of pushes) expect(p.headers.sign).toBe(hmac(account.openId, body));
    const parsed = parseWebhookMessage(body);
    expect(parsed.ok && parsed.message.type).toBe('STOCK');

    await vi.waitFor(async () => {
      const stats = await accountStats(account.openId);
      expect(stats.webhooksDelivered).toBe(2);
      expect(stats.webhooksFailed).toBe(0);
    });
  });

  it('stops pushing changes of a product once it is unsubscribed', async () => {
    await account.client.api.unsubscribeProducts({ productIds: ['P0001'] });
    const { messages } = await catalogueEvent({
      pid: 'P0001',
      kind: 'PRODUCT',
      openId: account.openId,
    });
    expect(messages).toEqual([]);
  });

  it('refuses productIds together with subscribeAll before sending, naming the field', async () => {
    const err = await account.client.api
      .subscribeProducts({ productIds: ['P0002'], subscribeAll: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierRequestInvalid);
    expect((err as SupplierRequestInvalid).issues.map((i) => i.field)).toEqual(['subscribeAll']);
  });

  it('refuses subscribeAll now that explicit product ids are required', async () => {
    const err = await supplierError(account.client.api.subscribeProducts({ subscribeAll: true }));
    expect(err.code).toBe(SupplierCode.SubscriptionFailed);
    expect(err.supplierMessage).toMatch(/subscribe products by id/);
  });
});

describe('webhook rules (own sandbox, local callbacks refused)', () => {
  let started: StartedSandbox;
  let client: SupplierClient;
  let openId: string;

  beforeAll(async () => {
    started = await startSandbox({
      log: pino({ level: 'silent' }),
      port: 0,
      allowLocalWebhooks: false,
    });
    client = new SupplierClient({ baseUrl: started.url, apiKey: 'sandbox' });
    openId = started.sandbox.defaultAccount().openId;
  });

  afterAll(async () => {
    await client.close();
    await started.close();
  });

  it.each([
    ['https://localhost/hooks', /localhost/],
    ['https://127.0.0.1:8443/hooks', /127\.0\.0\.1.*loopback/],
    ['https://[::1]/hooks', /::1.*loopback/],
    ['http://hooks.example.com/supplier', /HTTPS/],
  ])('refuses the callback %s with 1607001 and the reason', async (url, reason) => {
    const err = await supplierError(
      client.api.setWebhooks({ order: { type: 'ENABLE', callbackUrls: [url] } }),
    );
    expect(err.code).toBe(SupplierCode.LocalCallbackRefused);
    expect(err.supplierMessage).toMatch(reason);
  });

  it('refuses subscriptions while the product topic is not enabled', async () => {
    const err = await supplierError(client.api.subscribeProducts({ productIds: ['P0001'] }));
    expect(err.code).toBe(SupplierCode.ProductWebhookNotEnabled);
  });

  it('refuses subscriptions beyond the account cap, keeping none of them', async () => {
    await client.api.setWebhooks({
      product: { type: 'ENABLE', callbackUrls: ['https://hooks.example.com/supplier'] },
    });
    started.sandbox.account(openId).subscriptionCap = 2;

    const err = await supplierError(
      client.api.subscribeProducts({ productIds: ['P0001', 'P0002', 'P0003'] }),
    );
    expect(err.code).toBe(SupplierCode.SubscriptionCapExceeded);
    const within = await client.api.subscribeProducts({ productIds: ['P0001', 'P0002'] });
    expect(within.successProductIds).toEqual(['P0001', 'P0002']);
  });

  it('closes a topic after two bad hours and reopens it on ENABLE', async () => {
    const sb = started.sandbox;
    const sub = sb.account(openId).webhooks.product;
    if (!sub) throw new Error('product topic not set');
    // Two complete hours with 1 success in 4 pushes each.
    const hour = Math.floor(sb.now() / 3_600_000);
    sub.hourly = { [hour - 2]: { ok: 1, failed: 3 }, [hour - 1]: { ok: 1, failed: 3 } };

    const change = { type: 'PRODUCT', messageType: 'UPDATE', params: { pid: 'P0001' } };
    expect(sb.webhooks.enqueue(openId, 'product', change)).toBeUndefined();
    expect(sub.enabled).toBe(false);
    expect(sub.closedReason).toMatch(/below 80%/);

    await client.api.setWebhooks({
      product: { type: 'ENABLE', callbackUrls: ['https://hooks.example.com/supplier'] },
    });
    const reopened = sb.account(openId).webhooks.product;
    expect(reopened?.enabled).toBe(true);
    expect(reopened?.closedReason).toBeUndefined();
  });
});
