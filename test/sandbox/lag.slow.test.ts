/**
 * The timing rules of a worse supplier, on a sandbox of its own whose clock the test moves:
 * order queries that show each order as it was `batchLagMs` ago (or at `batchViewAt`), and a pay
 * window that ends.
 * Started with `startSandbox({ batchLagMs, payWindowSeconds })`.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { utcDate } from '../../tools/src/sandbox/orderView.js';
import { startSandbox, type StartedSandbox } from '../../tools/src/sandbox/server.js';
import type { SandboxStats } from '../../tools/src/sandbox/state.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { changeSettings, control, readSettings } from './controls.js';

const LAG_MS = 10_000;
const PAY_WINDOW_SECONDS = 60;

let started: StartedSandbox;
let client: SupplierClient;
let clock: number;

beforeAll(async () => {
  started = await startSandbox({
    log: pino({ level: 'silent' }),
    port: 0,
    batchLagMs: LAG_MS,
    payWindowSeconds: PAY_WINDOW_SECONDS,
    oneBudget: false,
  });
  clock = Date.now();
  vi.spyOn(started.sandbox, 'now').mockImplementation(() => clock);
  client = new SupplierClient({
    baseUrl: started.url,
    apiKey: 'sandbox',
    tokenCallIntervalMs: 1_000,
  });
});

afterAll(async () => {
  await client.close();
  await started.close();
});

const later = (ms: number) => {
  clock += ms;
};

async function stats(): Promise<SandboxStats> {
  const openId = started.sandbox.defaultAccount().openId;
  return (await control<SandboxStats>('GET', `stats?openId=${openId}`, undefined, started.url))
    .body;
}

it('startSandbox options set the defaults of every account', async () => {
  expect((await readSettings(undefined, started.url)).body).toEqual({
    batchLagMs: LAG_MS,
    disputeLagMs: 0,
    payWindowSeconds: PAY_WINDOW_SECONDS,
    oneBudget: false,
    tokenIntervalSeconds: expect.any(Number) as number,
    ratePerSecond: expect.any(Number) as number,
  });
});

describe('batch-query lag', () => {
  it('every order query shows the order, its status, payment, shipment and proof as they were batchLagMs ago', async () => {
    const created = await client.api.createOrderV3(usOrder());
    const orderId = created.orderId!;
    const batch = async () => (await client.api.getOrderDetailBatch({ orderIds: [orderId] }))[0];

    later(LAG_MS - 1);
    expect(await batch()).toBeUndefined();
    later(1);
    expect(await batch()).toMatchObject({ orderStatus: 'CREATED' });

    await client.api.addCart({ svcOrderIdList: [orderId] });
    expect(await batch()).toMatchObject({ orderStatus: 'CREATED' });
    later(LAG_MS);
    expect(await batch()).toMatchObject({ orderStatus: 'IN_CART' });

    const { shipmentsId } = await client.api.addCartConfirm({ svcOrderIdList: [orderId] });
    const { payId } = await client.api.saveGenerateParentOrder({ shipmentOrderId: shipmentsId! });
    await client.api.payBalanceV2({ shipmentOrderId: shipmentsId!, payId: payId! });
    const paidAt = clock;
    expect(await batch()).toMatchObject({ orderStatus: 'IN_CART', paymentDate: null });
    expect(await client.api.getOrderDetail({ orderId })).toMatchObject({
      orderStatus: 'IN_CART',
    });
    later(LAG_MS);
    expect(await batch()).toMatchObject({
      orderStatus: 'UNSHIPPED',
      subStatus: 'PENDING',
      paymentDate: utcDate(paidAt),
    });
    const listed = await client.api.listOrders({ status: 'UNSHIPPED', orderIds: [orderId] });
    expect(listed.list.map((o) => o.svcOrderId)).toEqual([orderId]);

    const delivered = await control(
      'POST',
      `orders/${orderId}/advance`,
      { to: 'DELIVERED' },
      started.url,
    );
    expect(delivered.status).toBe(200);
    const proof = async () =>
      (await client.api.getProofOfDelivery({ orderIds: [orderId] }))[0]?.proofOfDeliveryList;
    expect(await batch()).toMatchObject({ orderStatus: 'UNSHIPPED', trackNumber: null });
    expect(await proof()).toEqual([]);
    later(LAG_MS);
    expect(await batch()).toMatchObject({
      orderStatus: 'DELIVERED',
      trackNumber: expect.stringMatching(/\w+/) as string,
    });
    expect(await proof()).toHaveLength(2);
  });

  it('batchViewAt holds every order query at its moment, whatever the clock, until it is null', async () => {
    const openId = started.sandbox.defaultAccount().openId;
    const orderId = (await client.api.createOrderV3(usOrder())).orderId!;
    const batch = async () => (await client.api.getOrderDetailBatch({ orderIds: [orderId] }))[0];
    later(LAG_MS);
    await changeSettings({ openId, batchViewAt: clock }, started.url);
    later(1);
    await client.api.addCart({ svcOrderIdList: [orderId] });
    later(2 * LAG_MS);
    expect(await batch()).toMatchObject({ orderStatus: 'CREATED' });
    await changeSettings({ openId, batchViewAt: null }, started.url);
    expect(await batch()).toMatchObject({ orderStatus: 'IN_CART' });
  });
});

describe('pay window', () => {
  it('a payId can be paid until payExpireTime; then payment is refused and a new payId is given', async () => {
    const before = await stats();
    const created = await client.api.createOrderV3(usOrder());
    const orderId = created.orderId!;
    await client.api.addCart({ svcOrderIdList: [orderId] });
    const { shipmentsId } = await client.api.addCartConfirm({ svcOrderIdList: [orderId] });
    const shipmentOrderId = shipmentsId!;
    const first = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(first.payExpireTime).toBe(utcDate(clock + PAY_WINDOW_SECONDS * 1_000));

    later(PAY_WINDOW_SECONDS * 1_000 - 1);
    const again = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(again).toMatchObject({ payId: first.payId, payExpireTime: first.payExpireTime });

    later(1);
    const balance = (await client.api.getBalance({})).amount;
    await expect(
      client.api.payBalanceV2({ shipmentOrderId, payId: first.payId! }),
    ).rejects.toMatchObject({
      code: SupplierCode.PayFailed,
      supplierMessage: expect.stringContaining('payment expired') as string,
    });
    expect((await client.api.getBalance({})).amount).toBe(balance);

    const renewed = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(renewed.payId).not.toBe(first.payId);
    expect(renewed.payExpireTime).toBe(utcDate(clock + PAY_WINDOW_SECONDS * 1_000));
    await expect(
      client.api.payBalanceV2({ shipmentOrderId, payId: first.payId! }),
    ).rejects.toMatchObject({ code: SupplierCode.PayFailed });
    await client.api.payBalanceV2({ shipmentOrderId, payId: renewed.payId! });
    expect((await client.api.getBalance({})).amount).toBeCloseTo(balance - created.orderAmount!, 2);

    // A paid parent order keeps its payId, whatever the time.
    later(PAY_WINDOW_SECONDS * 1_000);
    const afterPayment = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(afterPayment.payId).toBe(renewed.payId);
    const after = await stats();
    expect(after.payments - before.payments).toBe(1);
    expect(after.expiredPaymentsRefused - before.expiredPaymentsRefused).toBe(2);
    expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
  });
});
