/**
 * An enforced pay window on the shared sandbox: POST /__sandbox/orders/<id>/expire-payment ends
 * it now; payment is then refused without charge and counted, and saveGenerateParentOrder gives
 * a new payId. The window itself follows the account's `payWindowSeconds`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupplierCode } from '../../src/supplier/errors.js';
import { changeSettings, expirePayment } from '../sandbox/controls.js';
import { accountStats, newSandboxAccount, type TestAccount } from '../support/sandbox.js';
import { usOrder } from './orderHelpers.js';

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount(1_000);
});

afterAll(async () => {
  await account.client.close();
});

/** A created order, in the cart and confirmed: its shipment (parent order) id. */
async function confirmedOrder(): Promise<{ orderId: string; shipmentOrderId: string }> {
  const created = await account.client.api.createOrderV3(usOrder());
  const orderId = created.orderId!;
  await account.client.api.addCart({ svcOrderIdList: [orderId] });
  const confirmed = await account.client.api.addCartConfirm({ svcOrderIdList: [orderId] });
  return { orderId, shipmentOrderId: confirmed.shipmentsId! };
}

/** payExpireTime (yyyy-MM-dd HH:mm:ss, UTC) in epoch milliseconds. */
const epoch = (payExpireTime: string | null | undefined) =>
  Date.parse(`${payExpireTime!.replace(' ', 'T')}Z`);

describe('pay window', () => {
  it('lasts payWindowSeconds, and saveGenerateParentOrder answers the same payId within it', async () => {
    const { client, openId } = account;
    await changeSettings({ openId, payWindowSeconds: 600 });
    const { shipmentOrderId } = await confirmedOrder();
    const before = Date.now();
    const first = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    const after = Date.now();
    // payExpireTime has whole seconds.
    expect(epoch(first.payExpireTime)).toBeGreaterThan(before + 600_000 - 1_000);
    expect(epoch(first.payExpireTime)).toBeLessThanOrEqual(after + 600_000);
    const again = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(again).toMatchObject({ payId: first.payId, payExpireTime: first.payExpireTime });
    await changeSettings({ openId, payWindowSeconds: null });
  });

  it('once expired, payment is refused without charge and counted; a new payId pays', async () => {
    const { client, openId } = account;
    const { orderId, shipmentOrderId } = await confirmedOrder();
    const first = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    const expired = await expirePayment(orderId);
    expect(expired).toMatchObject({
      status: 200,
      body: { shipmentOrderId, payId: first.payId },
    });
    const balance = (await client.api.getBalance({})).amount;
    const statsBefore = await accountStats(openId);

    await expect(
      client.api.payBalanceV2({ shipmentOrderId, payId: first.payId! }),
    ).rejects.toMatchObject({
      code: SupplierCode.PayFailed,
      supplierMessage: expect.stringContaining('payment expired') as string,
    });
    // The older endpoint honours the same window.
    await expect(client.api.payBalance({ orderId })).rejects.toMatchObject({
      code: SupplierCode.PayFailed,
      supplierMessage: expect.stringContaining('payment expired') as string,
    });
    expect((await client.api.getBalance({})).amount).toBe(balance);
    const detail = await client.api.getOrderDetail({ orderId });
    expect(detail).toMatchObject({ orderStatus: 'UNPAID', paymentDate: null });

    const renewed = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(renewed.payId).not.toBe(first.payId);
    expect(epoch(renewed.payExpireTime)).toBeGreaterThan(epoch(expired.body.payExpireTime));
    // The replaced payId stays refused as expired.
    await expect(
      client.api.payBalanceV2({ shipmentOrderId, payId: first.payId! }),
    ).rejects.toMatchObject({
      supplierMessage: expect.stringContaining('payment expired') as string,
    });
    await client.api.payBalanceV2({ shipmentOrderId, payId: renewed.payId! });
    await expect(
      client.api.payBalanceV2({ shipmentOrderId, payId: renewed.payId! }),
    ).rejects.toMatchObject({ code: SupplierCode.PayFailed });

    const stats = await accountStats(openId);
    expect(stats.expiredPaymentsRefused - statsBefore.expiredPaymentsRefused).toBe(3);
    expect(stats.payments - statsBefore.payments).toBe(1);
    expect(stats.repeatedPaymentsRefused - statsBefore.repeatedPaymentsRefused).toBe(1);
    expect((await client.api.getBalance({})).amount).toBeCloseTo(balance - detail.orderAmount!, 2);
  });

  it('expire-payment: 404 for an unknown order, 409 before a payId and after payment', async () => {
    expect((await expirePayment('NO-SUCH-ORDER')).status).toBe(404);
    const { orderId, shipmentOrderId } = await confirmedOrder();
    expect((await expirePayment(orderId)).status).toBe(409);
    const { payId } = await account.client.api.saveGenerateParentOrder({ shipmentOrderId });
    await account.client.api.payBalanceV2({ shipmentOrderId, payId: payId! });
    expect((await expirePayment(orderId)).status).toBe(409);
  });
});
