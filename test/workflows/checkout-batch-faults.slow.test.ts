/**
 * A checkout batch under lost answers, against a supplier whose order queries lag: the batch
 * settles a lost answer with one look-up for all its orders and goes on together, one shipment
 * paid once; only an order the supplier really refused goes on alone. A look-up that keeps failing
 * stops every order of the batch for a person as soon as an order's own would.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, clearFaults, injectFault, takenCalls } from '../support/sandbox.js';
import { changeSettings } from '../sandbox/controls.js';
import { editOrder, orderNumber, usOrder } from '../supplier/orderHelpers.js';
import {
  atStage,
  lookUpsKeepFailing,
  ORDER_DETAIL_BATCH,
  recoverAndResume,
  refusedCancel,
} from './reconcile-support.js';

/** Long enough that only the batch size closes a batch. */
const NEVER = 600_000;
const BATCH = 3;
/** The supplier's order queries show each order as it was this long ago. */
const QUERY_LAG_MS = 2_000;

const h = useOrderHarness('batch-faults', 10_000, {
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: BATCH },
});

beforeAll(async () => {
  const set = await changeSettings({ openId: h.account.openId, batchLagMs: QUERY_LAG_MS });
  expect(set.status).toBe(200);
});

afterEach(async () => {
  await clearFaults(h.account.openId);
});

const PAY = 'shopping/pay/payBalanceV2';

const MUTATING = [
  'order/createOrderV3',
  'order/addCart',
  'order/addCartConfirm',
  'order/saveGenerateParentOrder',
  'pay/payBalanceV2',
].map((p) => `shopping/${p}`);

type Stats = Awaited<ReturnType<typeof accountStats>>;
const taken = takenCalls;

/** The mutating calls between two readings of the account's stats, by endpoint and in all. */
function mutatingCalls(before: Stats, after: Stats): { total: number; byPath: string } {
  const byPath = MUTATING.map((p) => [p, taken(after, p) - taken(before, p)] as const);
  return {
    total: byPath.reduce((n, [, c]) => n + c, 0),
    byPath: byPath.map(([p, c]) => `${p.split('/').at(-1)} ${c}`).join(', '),
  };
}

function atMostMutating(before: Stats, after: Stats, most: number): void {
  const calls = mutatingCalls(before, after);
  expect(calls.total, calls.byPath).toBeLessThanOrEqual(most);
}

function flowB(tag: string) {
  return validOrder({
    ...usOrder({ orderNumber: orderNumber(tag) }),
    // The supplier's view is believed once it had this long to catch up.
    fulfillment: { flow: 'B', supplierLagSeconds: 4 },
  });
}

const waitsForBatch = (s: OrderStatus) => /checkout batch/.test(s.waitingFor ?? '');
const wentAlone = (s: OrderStatus) => s.timeline.some((t) => /alone/.test(t.note ?? ''));

async function batchOf(tag: string, n: number): Promise<WorkflowHandle[]> {
  const out: WorkflowHandle[] = [];
  for (let i = 0; i < n; i += 1) out.push(await startOrder(h, flowB(`${tag}-${i}`)));
  return out;
}

/** The batch's orders all paid with it: one shipment, no order on its own. */
async function paidTogether(orders: readonly WorkflowHandle[]): Promise<OrderStatus[]> {
  const paid = await Promise.all(orders.map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)));
  expect(new Set(paid.map((s) => s.shipmentOrderId)).size).toBe(1);
  for (const s of paid) {
    expect(s.timeline.some((t) => /with checkout batch/.test(t.note ?? ''))).toBe(true);
    expect(wentAlone(s)).toBe(false);
  }
  return paid;
}

// First in the file: no tracking of paid orders reads the order query before its faults.
it('a batch whose payment answer is lost while its look-up fails twice is paid once, together', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ openId, path: PAY, kind: 'commitThenDrop' });
  // Two failed look-ups (Temporal tries each read three times); the third answers, within the
  // tries an order's own look-up has before it asks a person.
  await injectFault({ openId, path: ORDER_DETAIL_BATCH, kind: 'http5xx', times: 6 });

  await paidTogether(await batchOf('pay-lost', BATCH));
  const after = await accountStats(openId);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
  expect(taken(after, PAY) - taken(before, PAY)).toBe(1);
  atMostMutating(before, after, BATCH + 4);
});

it('a batch whose payment answer is lost and whose look-up keeps failing stops every order at NEEDS_ATTENTION with that failure, as an order alone would; resumed, each is found paid, paid once', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ openId, path: PAY, kind: 'commitThenDrop' });
  await lookUpsKeepFailing(openId);

  const orders = await batchOf('pay-unsettled', BATCH);
  const stopped = await Promise.all(orders.map((o) => atStage(o, Stage.NEEDS_ATTENTION)));
  for (const s of stopped) {
    // The batch's own failure, not one each order met looking it up again.
    expect(s.error).toEqual(stopped[0]!.error);
    expect(s.error?.step).toBe('payBalanceV2 look-up');
    expect(s.error?.message).toMatch(
      /^the outcome of payBalanceV2 is unknown and looking it up failed: getOrderDetailBatch: /,
    );
    expect(s.outcomeUnknown?.step).toBe('payBalanceV2');
    expect(s.waitingFor).toMatch(/resume to look payBalanceV2 up again/);
    expect(s.shipmentOrderId).toBe(stopped[0]!.shipmentOrderId);
  }
  // The money may be gone (and the shipment is paid only whole): a person may resume, not cancel.
  expect(await refusedCancel(orders[0]!)).toMatch(/^cancel refused: /);

  for (const o of orders) await recoverAndResume(h, o);
  const paid = await Promise.all(orders.map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)));
  expect(new Set(paid.map((s) => s.shipmentOrderId)).size).toBe(1);
  const after = await accountStats(openId);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
  expect(taken(after, PAY) - taken(before, PAY)).toBe(1);
});

it('a batch whose confirmation answer is lost finds its shipment with one look-up and is paid once, together', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ openId, path: 'shopping/order/addCartConfirm', kind: 'commitThenDrop' });

  await paidTogether(await batchOf('confirm-lost', BATCH));
  const after = await accountStats(openId);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);
  // createOrderV3 for each, then addCart, the lost confirmation and its one repeat (which only
  // names the shipment), the parent order and the payment.
  atMostMutating(before, after, BATCH + 5);
});

it('a lost addCart answer where the supplier refused one order: only that one goes on alone', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  const [plain, spoiled] = await batchOf('cart-lost', BATCH - 1);
  await reachStage(plain!, Stage.CREATED, waitsForBatch);
  // Changed at the supplier while it waits: the batch's addCart intercepts it.
  const toSpoil = await reachStage(spoiled!, Stage.CREATED, waitsForBatch);
  expect((await editOrder(toSpoil.svcOrderId!, { shippingZip: 'ABCDE' })).status).toBe(200);
  await injectFault({ openId, path: 'shopping/order/addCart', kind: 'commitThenDrop' });
  // The last order closes the batch.
  const other = await startOrder(h, flowB('cart-lost-last'));

  await paidTogether([plain!, other]);
  const stopped = await reachStage(spoiled!, Stage.INTERCEPTED);
  expect(stopped.interception?.step).toBe('addCart');
  expect(stopped.interception?.reasons[0]?.code).toBe(100102);
  expect(stopped.shipmentOrderId).toBeUndefined();

  const after = await accountStats(openId);
  expect(after.payments - before.payments).toBe(1);
  // createOrderV3 for each, the lost addCart, the refused order's own addCart, then one
  // confirmation, parent order and payment for the two.
  atMostMutating(before, after, BATCH + 5);
});
