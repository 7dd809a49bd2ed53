/**
 * Orders an operator can mend: what stops an order before the supplier has it may be in the order
 * itself (an unknown variant, an address the supplier intercepts), so `amend` changes its body and
 * the create is sent again; once the supplier has the order, amend is refused with the reason. An
 * order cancelled before the supplier ever had it frees its orderNumber.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { beforeAll, expect, it } from 'vitest';

import { cancelUpdate, Stage, type OrderStatus } from '../../src/order/contract.js';
import {
  OrderActionRejectedError,
  OrderClient,
  OrderConflictError,
  OrderInvalidError,
} from '../../src/client/orderClient.js';
import type { CreateOrderRequest } from '../../src/supplier/api/orders.js';
import { nameScenario } from '../support/histories.js';
import { reachStage, sweepOnce, useOrderHarness } from '../support/orders.js';
import { accountStats, injectFault, takenCalls } from '../support/sandbox.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { lookUpsKeepFailing, recoverAndResume, stoppedForLookUp } from './reconcile-support.js';

const CREATE = 'shopping/order/createOrderV3';
const DELETE = 'shopping/order/deleteOrder';

const h = useOrderHarness('amend');
let orders: OrderClient;
beforeAll(() => {
  orders = new OrderClient(h.client, h.queues);
});

type Raw = CreateOrderRequest & { fulfillment: Record<string, unknown> };

function flowB(overrides: Partial<CreateOrderRequest> = {}): Raw {
  return { ...usOrder(overrides), fulfillment: { flow: 'B' } };
}

/** Submits as `dropflow submit` does (the input's hash in the memo); the order must be new. */
async function submit(raw: Raw): Promise<WorkflowHandle> {
  nameScenario(`order:${raw.orderNumber}`);
  const result = await orders.submit(raw);
  expect(result.outcome).toBe('started');
  return h.client.workflow.getHandle(result.workflowId);
}

async function stats() {
  const s = await accountStats(h.account.openId);
  return {
    creates: takenCalls(s, CREATE),
    deletes: takenCalls(s, DELETE),
    created: s.ordersCreated,
  };
}

const notes = (s: OrderStatus) => s.timeline.map((t) => t.note ?? '');

it('an unknown vid stops at NEEDS_ATTENTION naming the field; a bad amend changes nothing; amend with a known vid creates the order once and it completes; once created, amend is refused', async () => {
  const before = await stats();
  const raw = flowB({ products: [{ vid: 'P9999-V9', quantity: 2 }] });
  const number = raw.orderNumber;
  const handle = await submit(raw);
  const stopped = await reachStage(
    handle,
    Stage.NEEDS_ATTENTION,
    (s) => s.waitingFor !== undefined,
  );
  expect(stopped.error).toMatchObject({ step: 'createOrderV3', code: 1600100 });
  expect(stopped.waitingFor).toMatch(/^amend the order \(field products\[0\]\.vid\) or cancel/);

  // Changes that make an invalid order are refused with the field and the rule; nothing changes.
  const invalid = await orders
    .amend(number, { order: { products: [{ vid: 'P0001-V1', quantity: 0 }], shippingZip: '' } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(invalid).toBeInstanceOf(OrderInvalidError);
  expect((invalid as OrderInvalidError).issues).toEqual(
    expect.arrayContaining([
      { field: 'products[0].quantity', rule: expect.stringMatching(/at least 1/) as unknown },
    ]),
  );
  await expect(orders.amend(number, { order: { orderNumber: 'x' } as never })).rejects.toThrow(
    /orderNumber: cannot be amended/,
  );
  // (Its store events move on by themselves.)
  const { storeEvents: _now, ...unchanged } = await handle.query<OrderStatus>('status');
  const { storeEvents: _then, ...then } = stopped;
  expect(unchanged).toEqual(then);
  expect((await stats()).creates - before.creates).toBe(1);

  const amended = await orders.amend(number, {
    order: { products: [{ vid: 'P0001-V1', quantity: 2 }] },
    by: 'test',
  });
  expect(amended).toMatchObject({ accepted: true });
  expect(amended.message).toMatch(/^amended products; going on with createOrderV3/);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.svcOrderId).toMatch(/\w+/);
  expect(waiting.atSupplier).toBe(true);
  // The timeline names the changed fields, never their values.
  expect(notes(waiting)).toContain('amended: products (by test)');
  expect(notes(waiting).some((n) => n.includes('P0001-V1'))).toBe(false);
  const after = await stats();
  expect(after.creates - before.creates).toBe(2);
  expect(after.created - before.created).toBe(1);

  // The body it was submitted with still names this order.
  expect((await orders.submit(raw)).outcome).toBe('existing');

  const refused = await orders.amend(number, { order: { shippingPhone: '3105550100' } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(OrderActionRejectedError);
  expect((refused as OrderActionRejectedError).reason).toMatch(
    /^amend refused: the supplier has created the order \(\S+\)/,
  );

  expect((await advance(waiting.svcOrderId!, 'SHIPPED')).status).toBe(200);
  await sweepOnce(h);
  await reachStage(handle, Stage.SHIPPED);
  expect((await advance(waiting.svcOrderId!, 'DELIVERED')).status).toBe(200);
  await sweepOnce(h);
  const done = (await handle.result()) as OrderStatus;
  expect(done.stage).toBe(Stage.COMPLETED);
  expect((await stats()).created - before.created).toBe(1);
});

it('an order intercepted at its creation is amended: the intercepted order is deleted at the supplier and the amended one created', async () => {
  const before = await stats();
  const raw = flowB({ shippingZip: 'ABCDE' });
  const handle = await submit(raw);
  const stopped = await reachStage(handle, Stage.INTERCEPTED);
  expect(stopped.interception?.step).toBe('createOrderV3');
  expect(stopped.waitingFor).toMatch(/^amend the order, or resume/);

  const amended = await orders.amend(raw.orderNumber, { order: { shippingZip: '90210' } });
  expect(amended.accepted).toBe(true);
  expect(amended.message).toMatch(
    new RegExp(`^amended shippingZip; deleted the intercepted ${stopped.svcOrderId}`),
  );
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.svcOrderId).toMatch(/\w+/);
  expect(waiting.svcOrderId).not.toBe(stopped.svcOrderId);
  expect(waiting.interception).toBeUndefined();
  expect(notes(waiting)).toContain('amended: shippingZip');
  const old = await h.account.client.api.getOrderDetailBatch({ orderIds: [stopped.svcOrderId!] });
  expect(old).toEqual([]);
  const after = await stats();
  expect(after.deletes - before.deletes).toBe(1);
  expect(after.created - before.created).toBe(2);
});

it('a cancelled order the supplier never had is submitted again with a new body and starts again', async () => {
  const raw = flowB({ products: [{ vid: 'P9999-V9', quantity: 1 }] });
  const first = await submit(raw);
  await reachStage(first, Stage.NEEDS_ATTENTION);
  const cancelled = await first.executeUpdate(cancelUpdate, { args: [{ reason: 'wrong item' }] });
  expect(cancelled).toMatchObject({ accepted: true, stage: Stage.CANCELLED });
  const ended = (await first.result()) as OrderStatus;
  expect(ended).toMatchObject({ stage: Stage.CANCELLED, atSupplier: false });

  const before = await stats();
  const corrected: Raw = { ...raw, products: [{ vid: 'P0001-V1', quantity: 1 }] };
  const again = await submit(corrected);
  const waiting = await reachStage(again, Stage.AWAITING_SHIPMENT);
  expect(waiting.svcOrderId).toMatch(/\w+/);
  expect((await stats()).created - before.created).toBe(1);
  // The new run is the order now: its body is `existing`, the cancelled one's a conflict.
  expect((await orders.submit(corrected)).outcome).toBe('existing');
  await expect(orders.submit(raw)).rejects.toBeInstanceOf(OrderConflictError);
});

it('a cancelled order the supplier had keeps its orderNumber: another body is a conflict', async () => {
  const raw = flowB({ shippingZip: 'ABCDE' });
  const handle = await submit(raw);
  await reachStage(handle, Stage.INTERCEPTED);
  await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'customer withdrew' }] });
  const ended = (await handle.result()) as OrderStatus;
  expect(ended).toMatchObject({ stage: Stage.CANCELLED, atSupplier: true });
  await expect(orders.submit({ ...raw, shippingZip: '90210' })).rejects.toBeInstanceOf(
    OrderConflictError,
  );
});

it("amend is refused while the create's answer is lost, until dropflow has looked it up", async () => {
  const { openId } = h.account;
  await injectFault({ path: CREATE, kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);
  const raw: Raw = { ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 3 } };
  const handle = await submit(raw);
  await stoppedForLookUp(h, handle, raw.orderNumber, 'createOrderV3');

  await expect(
    orders.amend(raw.orderNumber, { order: { shippingPhone: '3105550100' } }),
  ).rejects.toThrow(/amend refused: the create's answer was lost; dropflow looks it up first/);

  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(notes(waiting).some((n) => n.startsWith('amended'))).toBe(false);
});
