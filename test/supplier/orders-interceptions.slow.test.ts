/**
 * What holds an order back in the sandbox, and how it gets through: the documented interception
 * rules, the logistics miss and its fix, logistics changes after payment, a short balance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interceptedOrderId } from '../../src/supplier/api/orders.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { InterceptCode } from '../../tools/src/sandbox/interceptions.js';
import { SCARCE_VARIANT } from '../../tools/src/sandbox/seed.js';
import { newSandboxAccount, sandboxUrl, type TestAccount } from '../support/sandbox.js';
import { editOrder, payOrder, usOrder } from './orderHelpers.js';

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount();
});

afterAll(async () => {
  await account.client.close();
});

const reasonCodes = (reasons: { code?: number | null }[]) => reasons.map((r) => r.code);

describe('interceptions', () => {
  it('each rule holds its order out of the cart until the merchant fixes it', async () => {
    const { client } = account;
    const orders = {
      zip: usOrder({ shippingZip: 'ABCDE' }),
      phone: usOrder({
        shippingCountryCode: 'CA',
        shippingCountry: 'Canada',
        shippingProvince: 'Ontario',
        shippingCity: 'Toronto',
        shippingZip: 'M5V 2T6',
      }),
      taxId: usOrder({
        shippingCountryCode: 'BR',
        shippingCountry: 'Brazil',
        shippingProvince: 'SP',
        shippingCity: 'Sao Paulo',
        shippingZip: '01310-100',
        shippingPhone: '+55 11 5555 0000',
        logisticName: 'Brazil Post Line',
      }),
      stock: usOrder({
        shopLogisticsType: 1,
        storageId: 'ST-CN-SZ',
        products: [{ vid: SCARCE_VARIANT.vid, quantity: 2 }],
      }),
    };
    const expected = {
      zip: [InterceptCode.ZipInvalid, 'shippingZip'],
      phone: [InterceptCode.PhoneRequired, 'shippingPhone'],
      taxId: [InterceptCode.TaxIdRequired, 'taxId'],
      stock: [InterceptCode.StockInsufficient, SCARCE_VARIANT.vid],
    } as const;

    const ids: Record<string, string> = {};
    for (const [rule, body] of Object.entries(orders)) {
      const created = await client.api.createOrderV3(body);
      const [code, named] = expected[rule as keyof typeof expected];
      expect(reasonCodes(created.interceptOrderReasons), rule).toEqual([code]);
      expect(created.interceptOrderReasons[0]?.message).toContain(named);
      ids[rule] = created.orderId!;
    }

    const all = Object.values(ids);
    const blocked = await client.api.addCart({ svcOrderIdList: all });
    expect(blocked.successCount).toBe(0);
    expect(blocked.interceptOrders.map(interceptedOrderId).sort()).toEqual([...all].sort());

    // The merchant fixes the addresses in the web console (the sandbox's /edit control).
    expect((await editOrder(ids.zip!, { shippingZip: '90210-1234' })).status).toBe(200);
    expect((await editOrder(ids.phone!, { shippingPhone: '+1 416 555 0100' })).status).toBe(200);
    expect((await editOrder(ids.taxId!, { taxId: '12345678909' })).status).toBe(200);

    const retried = await client.api.addCart({ svcOrderIdList: all });
    expect(retried.addSuccessOrders.sort()).toEqual([ids.zip, ids.phone, ids.taxId].sort());
    expect(retried.interceptOrders.map(interceptedOrderId)).toEqual([ids.stock]);
  });

  it('a logistics miss clears with a serving line; after payment logistics cannot change (8002)', async () => {
    const { client } = account;
    const created = await client.api.createOrderV3(usOrder({ logisticName: 'DHL Paket' }));
    expect(created.logisticsMiss).toBe(true);
    expect(reasonCodes(created.interceptOrderReasons)).toEqual([
      InterceptCode.LogisticsUnavailable,
    ]);
    const orderId = created.orderId!;

    const options = await client.api.getOrderLogisticsInfo({ orderCode: orderId });
    const express = options.find((o) => o.logisticsName === 'SvcPacket Express');
    expect(express).toBeDefined();
    expect(options.some((o) => o.logisticsName === 'DHL Paket')).toBe(false);

    const changed = await client.api.updateLogistics({
      id: express!.id,
      orderCode: orderId,
      logisticsName: 'SvcPacket Express',
    });
    expect(changed.interceptAbnormalReasons).toEqual([]);
    const detail = await client.api.getOrderDetail({ orderId });
    expect(detail.logisticName).toBe('SvcPacket Express');
    expect(detail.postageAmount).toBe(express!.postage);

    await payOrder(client, orderId);
    await expect(
      client.api.updateLogistics({ id: express!.id, orderCode: orderId }),
    ).rejects.toMatchObject({ code: SupplierCode.OrderStatusChanged, kind: 'business' });
  });

  it('a short balance refuses payment (1604000) until it is topped up', async () => {
    const poor = await newSandboxAccount(0);
    try {
      const { client } = poor;
      const created = await client.api.createOrderV3(usOrder());
      const orderId = created.orderId!;
      await client.api.addCart({ svcOrderIdList: [orderId] });
      const { shipmentsId } = await client.api.addCartConfirm({ svcOrderIdList: [orderId] });
      const { payId } = await client.api.saveGenerateParentOrder({ shipmentOrderId: shipmentsId! });
      const pay = { shipmentOrderId: shipmentsId!, payId: payId! };
      await expect(client.api.payBalanceV2(pay)).rejects.toMatchObject({
        code: SupplierCode.InsufficientBalance,
        kind: 'business',
      });

      const topUp = await fetch(`${sandboxUrl()}/__sandbox/balance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ openId: poor.openId, amount: 500 }),
      });
      expect(topUp.status).toBe(200);
      await client.api.payBalanceV2(pay);
      const detail = await client.api.getOrderDetail({ orderId });
      expect(detail.orderStatus).toBe('UNSHIPPED');
    } finally {
      await poor.client.close();
    }
  });
});
