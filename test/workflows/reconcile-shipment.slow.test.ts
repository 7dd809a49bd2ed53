/**
 * The calls that may act around the order's goods: uploadWaybillInfo (flow A) and
 * createConnection (flow C), each with a lost answer and a look-up that keeps failing; and a
 * rate-limit storm during a look-up, which is waited out, never handed to a person.
 */
import { expect, it } from 'vitest';
import { Stage, statusQuery } from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, injectFault, takenCalls } from '../support/sandbox.js';
import { advance, storeFlowOrder, usOrder } from '../supplier/orderHelpers.js';
import {
  lookUpsKeepFailing,
  noted,
  ORDER_DETAIL_BATCH,
  recoverAndResume,
  stagesOf,
  stoppedForLookUp,
} from './reconcile-support.js';

const h = useOrderHarness('reconcile-ship');

type Stats = Awaited<ReturnType<typeof accountStats>>;
const delta = (after: Stats, before: Stats, path: string) =>
  takenCalls(after, path) - takenCalls(before, path);

it('flow A: a lost waybill upload whose look-up keeps failing stops at NEEDS_ATTENTION; after resume the warehouse is seen to have it, no second upload', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  const upload = 'shopping/order/uploadWaybillInfo';
  await injectFault({ path: upload, kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);

  const trackNumber = `SF${Date.now()}`;
  const input = validOrder({
    ...usOrder(),
    fulfillment: {
      flow: 'A',
      storage: { mode: 'given', storageId: 'ST-CN-SZ' },
      supplierLagSeconds: 3,
      waybill: {
        carrier: 'SF Express',
        trackNumber,
        filename: 'label.pdf',
        contentBase64: Buffer.from('%PDF-1.4 label').toString('base64'),
      },
    },
  });
  const handle = await startOrder(h, input);
  const stopped = await stoppedForLookUp(h, handle, input.order.orderNumber, 'uploadWaybillInfo');
  expect(stagesOf(stopped)).toContain(Stage.PAID);

  // The warehouse starts work, which it does only with a waybill: the lost upload did act.
  expect((await advance(stopped.svcOrderId!, 'PROCESSING')).status).toBe(200);
  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.outcomeUnknown).toBeUndefined();
  expect(noted(waiting, /^waybill uploaded \(SF Express .*\): the warehouse has it$/)).toBe(true);

  // It leaves the warehouse under the uploaded label.
  expect((await advance(waiting.svcOrderId!, 'SHIPPED')).status).toBe(200);
  const [shipped] = await h.account.client.api.getOrderDetailBatch({
    orderIds: [waiting.svcOrderId!],
  });
  expect(shipped?.trackNumber).toBe(trackNumber);

  const after = await accountStats(openId);
  expect(delta(after, before, upload)).toBe(1);
  expect(after.ordersCreated - before.ordersCreated).toBe(1);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
});

it('flow C: a lost createConnection whose look-up keeps failing stops at NEEDS_ATTENTION; after resume the connected order is found, not connected again', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  const connect = 'product/conn/connection';
  await injectFault({ path: connect, kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);

  const { order, storeProductId, connection } = storeFlowOrder('rc');
  const input = validOrder({
    ...order,
    fulfillment: { flow: 'C', then: 'B', supplierLagSeconds: 3, connections: [connection()] },
  });
  const handle = await startOrder(h, input);
  const stopped = await stoppedForLookUp(h, handle, input.order.orderNumber, 'createConnection');
  expect(stopped.svcOrderId).toBeUndefined();

  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.flow).toBe('C+B');
  expect(waiting.svcOrderId).toMatch(/\w+/);
  expect(waiting.amounts?.orderAmount).toBeGreaterThan(0);
  expect(
    noted(waiting, new RegExp(`^connected store variant ${storeProductId}-v1 to P0003-V1$`)),
  ).toBe(true);

  const after = await accountStats(openId);
  expect(delta(after, before, connect)).toBe(1);
  expect(delta(after, before, 'shopping/order/createOrderV3')).toBe(1);
  expect(after.ordersCreated - before.ordersCreated).toBe(1);
  expect(after.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
  expect(after.payments - before.payments).toBe(1);
});

it('a 1600200 storm on the look-up of a lost create is waited out: the order goes on by itself', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ path: 'shopping/order/createOrderV3', kind: 'commitThenDrop', openId });
  await injectFault({ path: ORDER_DETAIL_BATCH, kind: 'rateLimit', times: 8, openId });

  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 3 } });
  const handle = await startOrder(h, input);
  // The order says why it waits.
  await eventually(
    'the order waiting out the rate limit',
    () => handle.query(statusQuery),
    (s) => /^the supplier asks to slow down/.test(s.waitingFor ?? ''),
  );
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(stagesOf(waiting)).not.toContain(Stage.NEEDS_ATTENTION);
  expect(noted(waiting, /found at the supplier after an unanswered create/)).toBe(true);

  const after = await accountStats(openId);
  // The whole storm hit the look-up.
  expect(after.faultsInjected - before.faultsInjected).toBe(9);
  expect(delta(after, before, 'shopping/order/createOrderV3')).toBe(1);
  expect(after.ordersCreated - before.ordersCreated).toBe(1);
  expect(after.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
  expect(after.payments - before.payments).toBe(1);
});
