/**
 * createOrderV3 through the reconciling step: a lost answer is settled by finding the order at
 * the supplier — never by creating it again — even when the look-up fails for a while or the
 * supplier's view lags; an order that really was not created is sent again only after the lag
 * window.
 */
import { expect, it } from 'vitest';
import { cancelUpdate, Stage, type OrderStatus } from '../../src/order/contract.js';
import { changeSettings } from '../sandbox/controls.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, clearFaults, injectFault, takenCalls } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { eventually } from '../support/eventually.js';
import type { SandboxStats } from '../../tools/src/sandbox/state.js';
import {
  lookUpsKeepFailing,
  noted,
  ORDER_DETAIL_BATCH,
  recoverAndResume,
  stagesOf,
  stoppedForLookUp,
} from './reconcile-support.js';

const CREATE = 'shopping/order/createOrderV3';

const h = useOrderHarness('reconcile-create');

/** The account's query lag for one test; the others run without. */
async function withQueryLag<T>(batchLagMs: number, run: () => Promise<T>): Promise<T> {
  const { openId } = h.account;
  expect((await changeSettings({ openId, batchLagMs })).status).toBe(200);
  try {
    return await run();
  } finally {
    await changeSettings({ openId, batchLagMs: null });
  }
}

it('a lost create whose look-up keeps failing stops at NEEDS_ATTENTION; after resume the order is found, not created again', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ path: CREATE, kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);

  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 3 } });
  const handle = await startOrder(h, input);
  const stopped = await stoppedForLookUp(h, handle, input.order.orderNumber, 'createOrderV3');
  // Nothing was adopted yet: the order does not pretend to know its supplier id.
  expect(stopped.svcOrderId).toBeUndefined();

  await recoverAndResume(h, handle);
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.svcOrderId).toMatch(/\w+/);
  expect(waiting.outcomeUnknown).toBeUndefined();
  expect(noted(waiting, /found at the supplier after an unanswered create/)).toBe(true);

  const after = await accountStats(openId);
  expect(takenCalls(after, CREATE) - takenCalls(before, CREATE)).toBe(1);
  expect(after.ordersCreated - before.ordersCreated).toBe(1);
  expect(after.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
  expect(after.payments - before.payments).toBe(1);
});

it('a lost create whose look-up lags is found once the view catches up, and is not sent again', async () => {
  // The supplier's view stands still from before the create until the order has looked it up
  // without finding it; the order allows 8 s from when the answer was lost, and the view moves on
  // well within them, so no look-up "proves" it absent. (A window that ended first would resend,
  // meet 1603003 and still settle — but with a second create call.)
  const { openId } = h.account;
  const before = await accountStats(openId);
  const lookUps = (s: SandboxStats) => takenCalls(s, ORDER_DETAIL_BATCH);
  await injectFault({ path: CREATE, kind: 'commitThenDrop', openId });
  await changeSettings({ openId, batchViewAt: Date.now() });
  try {
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', supplierLagSeconds: 8 },
    });
    const handle = await startOrder(h, input);
    const created = await eventually(
      'the create sent (its answer lost)',
      () => accountStats(openId),
      (s) => takenCalls(s, CREATE) > takenCalls(before, CREATE),
    );
    await eventually(
      'a look-up that does not find the order',
      () => accountStats(openId),
      (s) => lookUps(s) > lookUps(created),
    );
    await changeSettings({ openId, batchViewAt: null });

    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(noted(waiting, /found at the supplier after an unanswered create/)).toBe(true);
    expect(noted(waiting, /createOrderV3 proven not done/)).toBe(false);
    expect(stagesOf(waiting)).not.toContain(Stage.NEEDS_ATTENTION);

    const after = await accountStats(openId);
    expect(takenCalls(after, CREATE) - takenCalls(before, CREATE)).toBe(1);
    expect(after.ordersCreated - before.ordersCreated).toBe(1);
    expect(after.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
    // The view was consulted more than once before it showed the order.
    expect(lookUps(after) - lookUps(before)).toBeGreaterThanOrEqual(2);
  } finally {
    await changeSettings({ openId, batchViewAt: null });
  }
});

it('a create that did not act (5xx before acting) is sent again only once the lag window has passed', async () => {
  await withQueryLag(1_000, async () => {
    const { openId } = h.account;
    const before = await accountStats(openId);
    // A 5xx to a create is ambiguous to the client: the sandbox did not act, dropflow cannot know.
    await injectFault({ path: CREATE, kind: 'http5xx', times: 1, openId });
    const lagSeconds = 4;
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', supplierLagSeconds: lagSeconds },
    });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);

    const lost = waiting.timeline.find((t) => /^createOrderV3: no answer/.test(t.note ?? ''));
    const resent = waiting.timeline.find((t) =>
      /^createOrderV3 proven not done at the supplier; sending it again/.test(t.note ?? ''),
    );
    expect(lost).toBeDefined();
    expect(resent).toBeDefined();
    // Workflow time, from its own timeline: the resend waited for the whole window.
    expect(Date.parse(resent!.at) - Date.parse(lost!.at)).toBeGreaterThanOrEqual(
      lagSeconds * 1_000,
    );
    expect(noted(waiting, /found at the supplier after an unanswered create/)).toBe(false);

    const after = await accountStats(openId);
    expect(takenCalls(after, CREATE) - takenCalls(before, CREATE)).toBe(2);
    expect(after.ordersCreated - before.ordersCreated).toBe(1);
    expect(after.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
    expect(after.payments - before.payments).toBe(1);
  });
});

it('cancelling at NEEDS_ATTENTION while a create is in doubt removes the order the lost create made', async () => {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ path: CREATE, kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);

  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 3 } });
  const orderNumber = input.order.orderNumber;
  const handle = await startOrder(h, input);
  await stoppedForLookUp(h, handle, orderNumber, 'createOrderV3');

  // The supplier answers again; the operator gives the order up instead of resuming.
  await clearFaults(openId);
  const cancelled = await handle.executeUpdate(cancelUpdate, {
    args: [{ reason: 'customer withdrew' }],
  });
  expect(cancelled).toMatchObject({ accepted: true, stage: Stage.CANCELLED });
  const final = (await handle.result()) as OrderStatus;
  expect(final.stage).toBe(Stage.CANCELLED);

  // Nothing is left at the supplier: the order the lost create made was deleted too, so its
  // order number is free again and no unpaid order lingers in the merchant's account.
  expect(await h.account.client.api.getOrderDetailBatch({ orderIds: [orderNumber] })).toEqual([]);
  const after = await accountStats(openId);
  expect(takenCalls(after, CREATE) - takenCalls(before, CREATE)).toBe(1);
  expect(
    takenCalls(after, 'shopping/order/deleteOrder') -
      takenCalls(before, 'shopping/order/deleteOrder'),
  ).toBe(1);
  expect(after.payments - before.payments).toBe(0);
});
