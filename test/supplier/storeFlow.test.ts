import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';

interface OrderMessage {
  type: string;
  messageType: string;
  params: { svcOrderId: string; orderNumber: string; orderStatus: string };
}

/** An order-topic receiver that resolves `connected` with the first ORDER_CONNNECTED message. */
async function startReceiver() {
  let onConnected: (m: OrderMessage) => void = () => undefined;
  const connected = new Promise<OrderMessage>((resolve) => (onConnected = resolve));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OrderMessage;
      if (message.messageType === 'ORDER_CONNNECTED') onConnected(message);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/orders`, connected, close: () => server.close() };
}

describe('store flow orders wait for a connection (docs/supplier-api.md §6.3)', () => {
  let account: TestAccount;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    account = await newSandboxAccount();
    receiver = await startReceiver();
    await account.client.api.setWebhooks({
      order: { type: 'ENABLE', callbackUrls: [receiver.url] },
    });
  });
  afterAll(() => receiver.close());

  it('an order of an unconnected store product has no orderId, and becomes a catalogue order once connected', async () => {
    const api = account.client.api;
    const storeProductId = `SP-${randomUUID().slice(0, 8)}`;
    const storeVariantId = `${storeProductId}-green`;
    const orderNumber = `S-${randomUUID().slice(0, 8)}`;
    const created = await api.createOrderV3({
      orderNumber,
      orderFlow: 2,
      shippingCountryCode: 'US',
      shippingCountry: 'United States',
      shippingProvince: 'CA',
      shippingCity: 'Beverly Hills',
      shippingCustomerName: 'Ada Buyer',
      shippingAddress: '1 Main St',
      shippingZip: '90210',
      logisticName: 'SvcPacket Ordinary',
      fromCountryCode: 'CN',
      products: [
        {
          vid: storeVariantId,
          storeProductId,
          storeProductImg: 'https://shop.example/plant.jpg',
          storeProductName: 'Potted plant',
          quantity: 2,
        },
      ],
    });
    expect(created.orderId ?? undefined).toBeUndefined();

    // The order recorded the store product, unconnected.
    const page = await api.queryStoreProducts({ shopProductId: storeProductId });
    expect(page.list.map((p) => p.relevanceStatus)).toEqual([0]);

    await api.createConnection({
      defaultArea: 1,
      logistics: 'SvcPacket Ordinary',
      svcProductId: 'P0002',
      platformProductId: storeProductId,
      variantList: [{ svcVariantId: 'P0002-V1', platformVariantId: storeVariantId }],
    });

    // The order topic tells the caller the order's svc id (sic: three N).
    const message = await receiver.connected;
    expect(message).toMatchObject({
      type: 'ORDER',
      params: { orderNumber, orderStatus: 'CREATED' },
    });

    const [connected] = await api.getOrderDetailBatch({ orderIds: [orderNumber] });
    expect(connected?.svcOrderId).toBe(message.params.svcOrderId);
    expect(connected?.productList.map((p) => [p.vid, p.quantity])).toEqual([['P0002-V1', 2]]);
    expect(connected?.orderStatus).toBe('CREATED');
  });
});
