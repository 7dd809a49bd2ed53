/** The `sign` header check and the pushed message bodies (docs/supplier-api.md §12.3 to §12.8). */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ORDER_CONNECTED_MESSAGE_TYPE,
  parseWebhookMessage,
  type WebhookMessage,
} from '../../src/supplier/webhookMessages.js';
import { signWebhook, verifyWebhookSignature } from '../../src/supplier/webhookSignature.js';

const openId = '1000007919';
const body =
  '{"messageId":"ca72a4834cd14b9588e88ce206f614a0","type":"STOCK","messageType":"UPDATE","params":{}}';
const goodSign = createHmac('sha256', openId).update(body, 'utf8').digest('base64');

describe('verifyWebhookSignature', () => {
  it('accepts the signature of the exact body, as text or bytes', () => {
    expect(signWebhook(openId, body)).toBe(goodSign);
    expect(verifyWebhookSignature(openId, body, goodSign)).toBe(true);
    expect(verifyWebhookSignature(openId, Buffer.from(body, 'utf8'), goodSign)).toBe(true);
  });

  it('refuses a signature made with another key or over other bytes', () => {
    const otherKey = createHmac('sha256', '1000000001').update(body).digest('base64');
    expect(verifyWebhookSignature(openId, body, otherKey)).toBe(false);
    // The same JSON re-serialised with spaces is another body.
    const reformatted = JSON.stringify(JSON.parse(body), null, 1);
    expect(verifyWebhookSignature(openId, reformatted, goodSign)).toBe(false);
  });

  it('refuses a truncated or missing signature', () => {
    expect(verifyWebhookSignature(openId, body, goodSign.slice(0, -4))).toBe(false);
    expect(verifyWebhookSignature(openId, body, `${goodSign}AAAA`)).toBe(false);
    expect(verifyWebhookSignature(openId, body, '')).toBe(false);
    expect(verifyWebhookSignature(openId, body, undefined)).toBe(false);
    expect(verifyWebhookSignature(openId, body, null)).toBe(false);
  });
});

function parsed(body: unknown): WebhookMessage {
  const result = parseWebhookMessage(body);
  if (!result.ok) throw new Error(`not parsed: ${JSON.stringify(result.issues)}`);
  return result.message;
}

describe('parseWebhookMessage', () => {
  it('reads an order message with numeric ids, keeping unknown fields', () => {
    const m = parsed({
      messageId: 7_771_234,
      type: 'ORDER',
      messageType: ORDER_CONNECTED_MESSAGE_TYPE,
      openId: 1_000_007_919,
      params: {
        svcOrderId: 2_411_200_000_123,
        orderNumber: 'shop-1001',
        orderStatus: 'UNSHIPPED',
        privateOutboundOrder: false,
        orderItems: [{ vid: 1_424_608_189, quantity: 2, sellPrice: '3.50', lineItemId: 9 }],
        newField: 'kept',
      },
    });
    expect(m.type).toBe('ORDER');
    expect(m.messageType).toBe('ORDER_CONNNECTED');
    expect(m.messageId).toBe('7771234');
    expect(m.openId).toBe('1000007919');
    if (m.type !== 'ORDER') return;
    expect(m.params.svcOrderId).toBe('2411200000123');
    expect(m.params.privateOutboundOrder).toBe(false);
    expect(m.params.orderItems[0]).toMatchObject({
      vid: '1424608189',
      quantity: 2,
      sellPrice: 3.5,
      lineItemId: '9',
    });
    expect(m.params.newField).toBe('kept');
  });

  it('reads an order split message', () => {
    const m = parsed({
      messageId: 'a1',
      type: 'ORDERSPLIT',
      messageType: 'UPDATE',
      params: {
        originalOrderId: 2_411_200_000_123,
        orderSplitTime: '2026-11-20 10:00:00',
        splitOrderList: [
          {
            orderCode: 'SD2411200000124',
            createAt: 1_763_632_800_000,
            orderStatus: 300,
            productList: [
              { sku: 'SKU0001-BLACK', vid: 'P0001-V1', quantity: 1, productCode: 'X1' },
            ],
          },
        ],
      },
    });
    if (m.type !== 'ORDERSPLIT') throw new Error(m.type);
    expect(m.params.originalOrderId).toBe('2411200000123');
    expect(m.params.splitOrderList[0]?.productList[0]?.vid).toBe('P0001-V1');
  });

  it('reads the track events of a logistics message from their JSON string', () => {
    const events = [
      {
        status: 12,
        activity: 'Delivered',
        location: 'Austin, TX',
        eventTime: '2026-11-19 16:02:11',
        statusDesc: 'Delivered',
      },
    ];
    const m = parsed({
      messageId: 'b2',
      type: 'LOGISTIC',
      messageType: 'UPDATE',
      params: {
        orderId: 2_411_200_000_123,
        logisticName: 'SvcPacket Ordinary',
        trackingNumber: 'SVC123456789',
        trackingStatus: 12,
        logisticsTrackEvents: JSON.stringify(events),
      },
    });
    if (m.type !== 'LOGISTIC') throw new Error(m.type);
    expect(m.params.orderId).toBe('2411200000123');
    expect(m.params.logisticsTrackEvents).toEqual(events);
    expect('logisticsTrackEventsRaw' in m.params).toBe(false);
  });

  it('keeps unreadable track events as raw text instead of failing the message', () => {
    const m = parsed({
      messageId: 'b3',
      type: 'LOGISTIC',
      messageType: 'UPDATE',
      params: { orderId: 'X1', logisticsTrackEvents: '[{"status": 1,' },
    });
    if (m.type !== 'LOGISTIC') throw new Error(m.type);
    expect(m.params.logisticsTrackEvents).toEqual([]);
    expect(m.params).toMatchObject({ logisticsTrackEventsRaw: '[{"status": 1,' });
  });

  it('reads product and variant changes with their null unchanged fields', () => {
    const product = parsed({
      messageId: 'ca72a4834cd14b9588e88ce206f614a0',
      type: 'PRODUCT',
      messageType: 'UPDATE',
      params: {
        pid: 1_424_608_189_734,
        productName: null,
        productNameEn: null,
        productSellPrice: '2.35-3.10',
        productStatus: null,
        fields: ['productSellPrice'],
      },
    });
    if (product.type !== 'PRODUCT') throw new Error(product.type);
    expect(product.params.pid).toBe('1424608189734');
    expect(product.params.productSellPrice).toBe('2.35-3.10');
    expect(product.params.fields).toEqual(['productSellPrice']);

    const variant = parsed({
      messageId: 'c1',
      type: 'VARIANT',
      messageType: 'UPDATE',
      params: { vid: 77, variantSellPrice: 4.5, variantStatus: 1, fields: ['variantSellPrice'] },
    });
    if (variant.type !== 'VARIANT') throw new Error(variant.type);
    expect(variant.params.vid).toBe('77');
  });

  it('reads a stock message as a map from vid to stock per area', () => {
    const m = parsed({
      messageId: 'd1',
      type: 'STOCK',
      messageType: 'UPDATE',
      params: {
        'P0001-V1': [
          { vid: 'P0001-V1', areaId: 2, areaEn: 'US Warehouse', countryCode: 'US', storageNum: 37 },
        ],
      },
    });
    if (m.type !== 'STOCK') throw new Error(m.type);
    expect(m.params['P0001-V1']?.[0]).toMatchObject({ countryCode: 'US', storageNum: 37 });
  });

  it('reads makeup and private order messages', () => {
    const makeup = parsed({
      messageId: 'e1',
      type: 'MAKEUP',
      messageType: 'PAID',
      params: {
        orderId: 'BT2411200001',
        relationOrderId: 'SD2411200000124',
        payOrderId: 99_001,
        amount: '4.20',
        reason: 'Shipping fee difference',
        type: 1,
        diffUseType: 3,
        status: 'PAID',
        createDate: '2026-11-20 09:00:00',
        paymentDate: '2026-11-20 09:05:00',
      },
    });
    if (makeup.type !== 'MAKEUP') throw new Error(makeup.type);
    expect(makeup.params).toMatchObject({ payOrderId: '99001', amount: 4.2, status: 'PAID' });

    const privateOrder = parsed({
      messageId: 'f1',
      type: 'PRIVATE_ORDER',
      messageType: 'UPDATE',
      params: {
        orderId: 'SY1234567890123456789',
        orderNumber: 'stock-7',
        status: 'SHIPPED',
        orderType: 2,
        createDate: '2026-11-18 08:00:00',
        completeDate: null,
      },
    });
    if (privateOrder.type !== 'PRIVATE_ORDER') throw new Error(privateOrder.type);
    expect(privateOrder.params.status).toBe('SHIPPED');
  });

  it('reports an unknown type, a missing messageId or a body that is not JSON as field issues', () => {
    expect(
      parseWebhookMessage({ messageId: '1', type: 'REFUND', messageType: 'X', params: {} }),
    ).toMatchObject({
      ok: false,
      issues: [{ field: 'type' }],
    });
    const noId = parseWebhookMessage({
      type: 'MAKEUP',
      messageType: 'PAID',
      params: { orderId: 'BT1' },
    });
    expect(noId.ok).toBe(false);
    expect(!noId.ok && noId.issues.map((i) => i.field)).toEqual(['messageId']);
    expect(parseWebhookMessage('{not json')).toEqual({
      ok: false,
      issues: [{ field: '(body)', rule: 'must be JSON' }],
    });
  });
});
