/**
 * The cart steps through the reconciling step: addCart and addCartConfirm whose answers are lost
 * and whose look-ups keep failing stop for a person and, after resume, are settled by the
 * supplier's view; saveGenerateParentOrder, whose repeat within the pay window answers the same
 * payId, is settled by asking again. Each order is paid exactly once.
 */
import { expect, it } from 'vitest';
import { Stage } from '../../src/order/contract.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, injectFault, takenCalls } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';
import {
  atStage,
  lookUpsKeepFailing,
  noted,
  recoverAndResume,
  stoppedForLookUp,
} from './reconcile-support.js';

const h = useOrderHarness('reconcile-cart');

const order = () => validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 3 } });

const delta = (
  after: Awaited<ReturnType<typeof accountStats>>,
  before: Awaited<ReturnType<typeof accountStats>>,
  path: string,
) => takenCalls(after, path) - takenCalls(before, path);

it('a lost addCart whose look-up keeps failing stops at NEEDS_ATTENTION; after resume it is seen done, not sent again', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ path: 'shopping/order/addCart', kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);

  const input = order();
  const handle = await startOrder(h, input);
  const stopped = await stoppedForLookUp(h, handle, input.order.orderNumber, 'addCart');
  expect(stopped.svcOrderId).toMatch(/\w+/);

  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.outcomeUnknown).toBeUndefined();
  expect(noted(waiting, /^addCart: the supplier shows IN_CART/)).toBe(true);

  const after = await accountStats(openId);
  expect(delta(after, before, 'shopping/order/addCart')).toBe(1);
  expect(delta(after, before, 'shopping/order/createOrderV3')).toBe(1);
  expect(after.ordersCreated - before.ordersCreated).toBe(1);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
});

it('a lost addCartConfirm whose look-up keeps failing stops at NEEDS_ATTENTION; after resume the one shipment is found and paid once', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ path: 'shopping/order/addCartConfirm', kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);

  const input = order();
  const handle = await startOrder(h, input);
  const stopped = await stoppedForLookUp(h, handle, input.order.orderNumber, 'addCartConfirm');
  expect(stopped.shipmentOrderId).toBeUndefined();

  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.outcomeUnknown).toBeUndefined();
  expect(waiting.shipmentOrderId).toMatch(/\w+/);
  // The look-up confirmed again (the supplier answers a confirmed order with its shipment) and
  // found the order in that shipment: no second shipment, nothing proven "not done".
  expect(noted(waiting, /addCartConfirm proven not done/)).toBe(false);
  const members = await h.account.client.api.getOrderDetailBatch({
    orderIds: [waiting.svcOrderId!],
  });
  expect(members[0]?.orderStatus).toBe('UNSHIPPED');

  const after = await accountStats(openId);
  // The lost one, and the repeat inside the look-up that named the shipment.
  expect(delta(after, before, 'shopping/order/addCartConfirm')).toBe(2);
  expect(after.ordersCreated - before.ordersCreated).toBe(1);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
});

it('a lost saveGenerateParentOrder that keeps failing stops at NEEDS_ATTENTION; after resume the same payId is paid once', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  const path = 'shopping/order/saveGenerateParentOrder';
  // The parent order is made, its answer lost; then every repeat fails too.
  await injectFault({ path, kind: 'commitThenDrop', openId });
  await injectFault({ path, kind: 'http5xx', times: 100, openId });

  const input = order();
  const handle = await startOrder(h, input);
  const stopped = await atStage(handle, Stage.NEEDS_ATTENTION);
  expect(stopped.error?.step).toBe('saveGenerateParentOrder');
  expect(stopped.error?.message).toMatch(/saveGenerateParentOrder/);
  expect(stopped.payId).toBeUndefined();
  expect((await handle.describe()).status.name).toBe('RUNNING');

  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.payId).toMatch(/\w+/);
  // The payId paid is the shipment's one and only: the supplier answers it again, paid.
  const parent = await h.account.client.api.saveGenerateParentOrder({
    shipmentOrderId: waiting.shipmentOrderId!,
  });
  expect(parent.payId).toBe(waiting.payId);

  const after = await accountStats(openId);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
  expect(after.expiredPaymentsRefused - before.expiredPaymentsRefused).toBe(0);
  expect(delta(after, before, 'shopping/pay/payBalanceV2')).toBe(1);
});
