/**
 * The order happy path against the sandbox, through the typed client: create, cart,
 * confirmation, parent order, balance payment; and the two rules that keep an order from being
 * created or paid twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupplierCode, SupplierRequestInvalid } from '../../src/supplier/errors.js';
import { accountStats, newSandboxAccount, rawCall, type TestAccount } from '../support/sandbox.js';
import { usOrder } from './orderHelpers.js';

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount(1_000);
});

afterAll(async () => {
  await account.client.close();
});

describe('order flow', () => {
  it('a paid order is UNSHIPPED/PENDING, the balance is charged exactly once, a second payment is refused', async () => {
    const { client, openId } = account;
    const before = await client.api.getBalance({});

    const created = await client.api.createOrderV3(usOrder());
    expect(created.orderStatus).toBe('CREATED');
    expect(created.logisticsMiss).toBe(false);
    expect(created.interceptOrderReasons).toEqual([]);
    expect(created.orderAmount).toBeCloseTo(created.productAmount! + created.postageAmount!, 2);
    expect(created.productInfoList[0]?.lineItemId).toBeTruthy();
    const orderId = created.orderId!;

    const cart = await client.api.addCart({ svcOrderIdList: [orderId] });
    expect(cart.addSuccessOrders).toEqual([orderId]);
    const confirmed = await client.api.addCartConfirm({ svcOrderIdList: [orderId] });
    expect(confirmed.submitSuccess).toBe(true);
    const shipmentOrderId = confirmed.shipmentsId!;
    const parent = await client.api.saveGenerateParentOrder({ shipmentOrderId });
    expect(parent.orderMoney).toBe(created.orderAmount);
    const payId = parent.payId!;
    await client.api.payBalanceV2({ shipmentOrderId, payId });

    const detail = await client.api.getOrderDetail({ orderId });
    expect(detail).toMatchObject({
      orderStatus: 'UNSHIPPED',
      subStatus: 'PENDING',
      svcOrderId: orderId,
    });
    expect(detail.paymentDate).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const batch = await client.api.getOrderDetailBatch({ orderIds: [orderId, 'NO-SUCH-ORDER'] });
    expect(batch).toHaveLength(1);
    expect(batch[0]).toMatchObject({
      orderStatus: 'UNSHIPPED',
      subStatus: 'PENDING',
      svcOrderCode: detail.svcOrderCode,
    });

    const after = await client.api.getBalance({});
    expect(after.amount).toBeCloseTo(before.amount - created.orderAmount!, 2);

    await expect(client.api.payBalanceV2({ shipmentOrderId, payId })).rejects.toMatchObject({
      code: SupplierCode.PayFailed,
    });
    const stats = await accountStats(openId);
    expect(stats.payments).toBe(1);
    expect(stats.repeatedPaymentsRefused).toBe(1);
  });

  it('refuses a second order with the same orderNumber (1603003) and counts it', async () => {
    const order = usOrder();
    await account.client.api.createOrderV3(order);
    await expect(account.client.api.createOrderV3(order)).rejects.toMatchObject({
      code: SupplierCode.DuplicateOrder,
      kind: 'business',
    });
    expect((await accountStats(account.openId)).duplicateCreatesRefused).toBe(1);
  });

  it('names a missing required field: the client refuses before sending, the sandbox with 1600100', async () => {
    const { shippingCountryCode: _omitted, ...order } = usOrder();
    const callsBefore = (await accountStats(account.openId)).calls['shopping/order/createOrderV3'];
    const refused = await account.client.api
      .createOrderV3(order as Parameters<typeof account.client.api.createOrderV3>[0])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SupplierRequestInvalid);
    expect((refused as SupplierRequestInvalid).issues).toContainEqual({
      field: 'shippingCountryCode',
      rule: 'is required',
    });
    expect((await accountStats(account.openId)).calls['shopping/order/createOrderV3']).toBe(
      callsBefore,
    );

    // Another integration sending it anyway (own account: raw calls are not paced by the client).
    const other = await newSandboxAccount();
    const raw = await rawCall('shopping/order/createOrderV3', {
      token: await other.client.tokens.accessToken(),
      body: order,
    });
    await other.client.close();
    expect(raw.body).toMatchObject({ code: SupplierCode.ParamError, result: false, data: null });
    expect(raw.body.message).toContain('shippingCountryCode');
  });

  it('requires vid or sku on each product, naming products[i].vid', async () => {
    const order = usOrder({ products: [{ vid: 'P0001-V1', quantity: 1 }, { quantity: 1 }] });
    const refused = await account.client.api.createOrderV3(order).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SupplierRequestInvalid);
    expect((refused as SupplierRequestInvalid).message).toContain('products[1].vid');
  });
});
