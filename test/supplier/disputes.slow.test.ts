import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode, SupplierError, SupplierRequestInvalid } from '../../src/supplier/errors.js';
import { newSandboxAccount, sandboxUrl, type TestAccount } from '../support/sandbox.js';

const order = (orderNumber: string) => ({
  orderNumber,
  shippingCountryCode: 'US',
  shippingCountry: 'United States',
  shippingProvince: 'CA',
  shippingCity: 'Beverly Hills',
  shippingCustomerName: 'Ada Buyer',
  shippingAddress: '1 Main St',
  shippingZip: '90210',
  shippingPhone: '3105550100',
  logisticName: 'SvcPacket Ordinary',
  fromCountryCode: 'CN',
  products: [{ vid: 'P0001-V1', quantity: 2 }],
});

/** Creates and pays an order of two units; returns its svc order id. */
async function paidOrder(client: SupplierClient): Promise<string> {
  const created = await client.api.createOrderV3(order(`D-${randomUUID().slice(0, 8)}`));
  const orderId = created.orderId!;
  await client.api.addCart({ svcOrderIdList: [orderId] });
  const { shipmentsId } = await client.api.addCartConfirm({ svcOrderIdList: [orderId] });
  const { payId } = await client.api.saveGenerateParentOrder({ shipmentOrderId: shipmentsId! });
  await client.api.payBalanceV2({ shipmentOrderId: shipmentsId!, payId: payId! });
  return orderId;
}

/** The sandbox control that ends a Processing dispute now. */
async function resolve(disputeId: string, finallyDeal: 1 | 2 | 3): Promise<number> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/disputes/${disputeId}/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ finallyDeal }),
  });
  return res.status;
}

const failure = (e: unknown) => e;

describe('disputes (docs/supplier-api.md §9)', () => {
  let account: TestAccount;
  let orderId: string;
  beforeAll(async () => {
    account = await newSandboxAccount();
    orderId = await paidOrder(account.client);
  });

  it('a refund dispute: products, confirmation, one dispute per businessDisputeId, refund credited once', async () => {
    const api = account.client.api;
    const products = await api.disputeProducts({ orderId });
    expect(products.productInfoList).toHaveLength(1);
    const line = products.productInfoList[0]!;
    expect(line).toMatchObject({ svcVariantId: 'P0001-V1', quantity: 2, canChoose: true });
    const unitPrice = line.price!;

    const disputed = [{ lineItemId: line.lineItemId!, quantity: 1, price: unitPrice }];
    const confirm = await api.disputeConfirmInfo({ orderId, productInfoList: disputed });
    expect(confirm.maxAmount).toBeCloseTo(unitPrice, 2);
    expect(confirm.disputeReasonList.map((r) => r.disputeReasonId)).toContain(2);

    const before = (await api.getBalance({})).amount;
    const dispute = {
      businessDisputeId: `BD-${randomUUID()}`,
      orderId,
      disputeReasonId: 2,
      expectType: 1,
      refundType: 1,
      messageText: 'Arrived broken',
      imageUrl: ['https://shop.example/broken.jpg'],
      productInfoList: disputed,
    };
    expect(await api.createDispute(dispute)).toBe(true);
    // A retry with the same businessDisputeId opens nothing new.
    expect(await api.createDispute(dispute)).toBe(true);

    const open = await api.getDisputeList({ orderId });
    expect(open.total).toBe(1);
    expect(open.list[0]).toMatchObject({ status: 'Processing', disputeReason: 'Damaged' });
    const disputeId = open.list[0]!.id;
    // While it is open, no other dispute can be started on the order.
    const [stillOpen] = (await api.disputeProducts({ orderId })).productInfoList;
    expect(stillOpen?.canChoose).toBe(false);

    expect(await resolve(disputeId, 1)).toBe(200);
    expect(await resolve(disputeId, 1)).toBe(409);

    const detail = await api.getDisputeDetail({ disputeId });
    expect(detail).toMatchObject({ status: 'Completed', finallyDeal: 1 });
    expect(detail.money).toBeCloseTo(unitPrice, 2);
    expect(detail.refundDetails).toContainEqual(
      expect.objectContaining({ type: 'PRODUCT_COST', amount: detail.money }),
    );
    expect((await api.getBalance({})).amount).toBeCloseTo(before + unitPrice, 2);
    // The refunded unit is no longer disputable; the other one is.
    const [after] = (await api.disputeProducts({ orderId })).productInfoList;
    expect(after).toMatchObject({ quantity: 1, canChoose: true });
  });

  it('an open dispute can be cancelled, which frees its units', async () => {
    const api = account.client.api;
    const [line] = (await api.disputeProducts({ orderId })).productInfoList;
    await api.createDispute({
      businessDisputeId: `BD-${randomUUID()}`,
      orderId,
      disputeReasonId: 3,
      expectType: 2,
      refundType: 1,
      messageText: 'Wrong colour',
      productInfoList: [{ lineItemId: line!.lineItemId!, quantity: 1, price: line!.price! }],
    });
    const processing = await api.getDisputeList({ orderId });
    const opened = processing.list.find((d) => d.status === 'Processing')!;
    expect(await api.cancelDispute({ orderId, disputeId: opened.id })).toBe(true);

    const { list } = await api.getDisputeList({ orderId, disputeId: Number(opened.id) });
    expect(list.map((d) => d.status)).toEqual(['Cancelled']);
    const [freed] = (await api.disputeProducts({ orderId })).productInfoList;
    expect(freed).toMatchObject({ quantity: 1, canChoose: true });
  });

  it('more units than are disputable are refused with 1600100 naming the field', async () => {
    const [line] = (await account.client.api.disputeProducts({ orderId })).productInfoList;
    const refused = await account.client.api
      .disputeConfirmInfo({
        orderId,
        productInfoList: [{ lineItemId: line!.lineItemId!, quantity: 5, price: line!.price! }],
      })
      .catch(failure);
    expect(refused).toBeInstanceOf(SupplierError);
    expect((refused as SupplierError).code).toBe(SupplierCode.ParamError);
    expect((refused as SupplierError).supplierMessage).toContain('productInfoList[0].quantity');
  });

  it('an order that is not paid cannot be disputed', async () => {
    const api = account.client.api;
    const unpaid = await api.createOrderV3(order(`D-${randomUUID().slice(0, 8)}`));
    const refused = await api.disputeProducts({ orderId: unpaid.orderId! }).catch(failure);
    expect(refused).toBeInstanceOf(SupplierError);
    expect((refused as SupplierError).supplierMessage).toMatch(/orderId: .*cannot be disputed/);
  });

  it('the client refuses a message above 500 characters before sending', async () => {
    const refused = await account.client.api
      .createDispute({
        businessDisputeId: 'too-long',
        orderId,
        disputeReasonId: 1,
        expectType: 1,
        refundType: 1,
        messageText: 'x'.repeat(501),
        productInfoList: [{ quantity: 1, price: 1 }],
      })
      .catch(failure);
    expect(refused).toBeInstanceOf(SupplierRequestInvalid);
    expect((refused as SupplierRequestInvalid).issues).toEqual([
      { field: 'messageText', rule: 'must be at most 500 characters' },
    ]);
  });
});

describe('a lagging dispute list and console disputes (sandbox)', () => {
  it('with disputeLagMs a new dispute is listed only after the lag; a console dispute opens beside an open one and does not block the API', async () => {
    const account = await newSandboxAccount();
    const api = account.client.api;
    const orderId = await paidOrder(account.client);
    const post = (path: string, body: unknown) =>
      fetch(`${sandboxUrl()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const opened = await post('/__sandbox/disputes', {
      openId: account.openId,
      orderId,
      disputeReasonId: 3,
    });
    expect(opened.status).toBe(201);
    const staffs = ((await opened.json()) as { id: string }).id;
    // It does not stop the API from opening this caller's dispute.
    const [line] = (await api.disputeProducts({ orderId })).productInfoList;
    expect(line?.canChoose).toBe(true);

    const settings = await post('/__sandbox/settings', {
      openId: account.openId,
      disputeLagMs: 60_000,
    });
    expect(settings.status).toBe(200);
    await api.createDispute({
      businessDisputeId: `BD-${randomUUID()}`,
      orderId,
      disputeReasonId: 1,
      expectType: 1,
      refundType: 1,
      messageText: 'Never came',
      productInfoList: [{ lineItemId: line!.lineItemId!, quantity: 1, price: line!.price! }],
    });
    // Created, but not listed yet; neither is the console dispute (opened within the lag).
    expect((await api.getDisputeList({ orderId })).list).toEqual([]);
    const [taken] = (await api.disputeProducts({ orderId })).productInfoList;
    expect(taken?.canChoose).toBe(false);

    await post('/__sandbox/settings', { openId: account.openId, disputeLagMs: null });
    const { list } = await api.getDisputeList({ orderId });
    expect(list.map((d) => d.disputeReason)).toEqual(['Item not received', 'Wrong item']);
    expect(list[1]).toMatchObject({ id: staffs, status: 'Processing', productList: [] });
    expect(typeof list[0]?.createDate).toBe('number');
  });
});
