/**
 * After payment: waybills of platform-logistics orders, shipment and delivery (through the
 * sandbox's /advance control), proof of delivery, and the sandbox tracking number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WaybillRequest } from '../../src/supplier/api/waybill.js';
import { SupplierCode, SupplierRequestInvalid } from '../../src/supplier/errors.js';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';
import { advance, payOrder, usOrder } from './orderHelpers.js';

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount();
});

afterAll(async () => {
  await account.client.close();
});

const label = {
  filename: 'label.pdf',
  contentType: 'application/pdf',
  data: new TextEncoder().encode('%PDF-1.4 label'),
};

describe('waybill', () => {
  it('is accepted only after payment, from a carrier of the warehouse, and fixed until shipment', async () => {
    const { client } = account;
    // Flow A: platform logistics from the Los Angeles storage.
    const created = await client.api.createOrderV3(
      usOrder({
        fromCountryCode: 'US',
        logisticName: 'USPS Ground',
        shopLogisticsType: 1,
        storageId: 'ST-US-LA',
        products: [{ vid: 'P0002-V1', quantity: 1 }],
      }),
    );
    expect(created.interceptOrderReasons).toEqual([]);
    const svcOrderId = created.orderId!;
    const waybill = (carrier: string, trackNumber = '1Z999AA10123456784'): WaybillRequest => ({
      orderId: created.orderNumber!,
      svcOrderId,
      svcShippingCompanyName: carrier,
      trackNumber,
      waybillFile: label,
    });

    await client.api.addCart({ svcOrderIdList: [svcOrderId] });
    const { shipmentsId } = await client.api.addCartConfirm({ svcOrderIdList: [svcOrderId] });
    const { payId } = await client.api.saveGenerateParentOrder({ shipmentOrderId: shipmentsId! });
    await expect(client.api.uploadWaybillInfo(waybill('UPS'))).rejects.toMatchObject({
      code: SupplierCode.OrderStatusChanged,
    });

    await client.api.payBalanceV2({ shipmentOrderId: shipmentsId!, payId: payId! });
    await expect(client.api.uploadWaybillInfo(waybill('DHL'))).rejects.toMatchObject({
      code: SupplierCode.CarrierNotSupported,
    });
    // The warehouse does not start without the waybill.
    expect((await advance(svcOrderId, 'SHIPPED')).status).toBe(409);

    await client.api.uploadWaybillInfo(waybill('UPS'));
    const shipped = await advance(svcOrderId, 'SHIPPED');
    expect(shipped.status).toBe(200);
    expect(shipped.body).toMatchObject({
      orderStatus: 'SHIPPED',
      trackNumber: '1Z999AA10123456784',
    });

    await expect(client.api.updateWaybillInfo(waybill('USPS', 'NEW-NUMBER'))).rejects.toMatchObject(
      {
        code: SupplierCode.OrderStatusChanged,
      },
    );
  });

  it('is refused for a service-logistics order (804)', async () => {
    const { client } = account;
    const created = await client.api.createOrderV3(usOrder());
    await expect(
      client.api.uploadWaybillInfo({
        orderId: created.orderId!,
        svcOrderId: created.orderId!,
        svcShippingCompanyName: 'UPS',
        trackNumber: 'X1',
        waybillFile: label,
      }),
    ).rejects.toMatchObject({ code: SupplierCode.NotPlatformLogistics });
  });
});

describe('shipment and delivery', () => {
  it('a sandbox order is not charged, ships with a tracking number and delivers with proof', async () => {
    const { client } = account;
    const before = await client.api.getBalance({});
    const created = await client.api.createOrderV3(
      usOrder({ isSandbox: 1, logisticName: 'SvcPacket Express' }),
    );
    const orderId = created.orderId!;
    await payOrder(client, orderId);
    expect((await client.api.getBalance({})).amount).toBe(before.amount);

    expect(await client.api.getProofOfDelivery({ orderIds: [orderId, 'NO-SUCH-ORDER'] })).toEqual([
      { orderId, proofOfDeliveryList: [] },
    ]);

    expect((await advance(orderId, 'SHIPPED')).status).toBe(200);
    const shipped = await client.api.getOrderDetail({ orderId });
    expect(shipped.orderStatus).toBe('SHIPPED');
    expect(shipped.subStatus).toBeNull();
    expect(shipped.trackNumber).toBeTruthy();
    expect(shipped.trackingUrl).toContain(shipped.trackNumber);

    expect((await advance(orderId, 'DELIVERED')).status).toBe(200);
    const [proof] = await client.api.getProofOfDelivery({ orderIds: [orderId] });
    expect(proof?.proofOfDeliveryList.length).toBeGreaterThan(0);
    expect((await advance(orderId, 'SHIPPED')).status).toBe(409);

    // The sandbox tracking number: last value wins, readable in the order.
    await client.api.updateTrackNumber({ orderId, trackNumber: 'SANDBOX-TRACK-1' });
    const [listed] = (await client.api.listOrders({ orderIds: [orderId], status: 'DELIVERED' }))
      .list;
    expect(listed).toMatchObject({ trackNumber: 'SANDBOX-TRACK-1' });
    expect(listed?.subStatus).toBeUndefined();
  });

  it('updateTrackNumber: sandbox orders only (811), at most 64 characters', async () => {
    const { client } = account;
    const created = await client.api.createOrderV3(usOrder());
    await expect(
      client.api.updateTrackNumber({ orderId: created.orderId!, trackNumber: 'T1' }),
    ).rejects.toMatchObject({ code: SupplierCode.NotSandboxOrder });
    await expect(
      client.api.updateTrackNumber({ orderId: created.orderId!, trackNumber: 'T'.repeat(65) }),
    ).rejects.toBeInstanceOf(SupplierRequestInvalid);
  });
});
