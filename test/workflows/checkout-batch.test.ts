/**
 * Batched checkout: orders of one account are carted, confirmed and paid together by the
 * account's checkout coordinator, each order with its own outcome. Batches here close by size
 * (maxBatch = the orders of the test) so that what happens before does not race the batch.
 */
import { describe, expect, it } from 'vitest';
import {
  approvePaymentUpdate,
  cancelUpdate,
  resumeUpdate,
  Stage,
  statusQuery,
  type OrderStatus,
} from '../../src/order/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import {
  checkoutStatusQuery,
  checkoutWorkflowId,
  TELL_INCOMPLETE,
  type OutcomeTold,
  type TellAnswer,
} from '../../src/checkout/contract.js';
import { batchSizeOnly, NEVER } from '../support/checkoutSettings.js';
import { eventually } from '../support/eventually.js';
import {
  reachStage,
  stageVisible,
  startOrder,
  validOrder,
  useOrderHarness,
} from '../support/orders.js';
import {
  accountStats,
  injectFault,
  takenCalls,
  setBalance as setAccountBalance,
} from '../support/sandbox.js';
import { editOrder, orderNumber, usOrder } from '../supplier/orderHelpers.js';
import { tellActivities } from '../../src/checkout/tellActivities.js';
import type { WorkflowHandle } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';

const h = useOrderHarness('checkout', 10_000, {
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: 2 },
  // Past this bound a waiting order's stage is written to visibility (stageVisible below).
  checkoutOrderBoundMs: 5_000,
});

const settings = batchSizeOnly(h);

const coordinator = () =>
  h.client.workflow.getHandle(checkoutWorkflowId(queuePrefix(h.queues))).query(checkoutStatusQuery);

function flowB(tag: string, payment?: unknown) {
  return validOrder({
    ...usOrder({ orderNumber: orderNumber(tag) }),
    fulfillment: { flow: 'B', ...(payment !== undefined && { payment }) },
  });
}

const waitsForBatch = (s: OrderStatus) => /checkout batch/.test(s.waitingFor ?? '');
const calls = async (path: string) =>
  takenCalls(await accountStats(h.account.openId), `shopping/${path}`);

const setBalance = (amount: number) => setAccountBalance(h.account.openId, amount);

const coordinatorEvents = async () =>
  (await h.client.workflow.getHandle(checkoutWorkflowId(queuePrefix(h.queues))).fetchHistory())
    .events ?? [];

/** The `checkoutOutcome` signals an order received. */
const outcomesOf = async (order: WorkflowHandle) =>
  ((await order.fetchHistory()).events ?? []).filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'checkoutOutcome',
  ).length;

/** The calls of the coordinator's tell activity, with their input (key, outcomes told). */
async function tellCalls(): Promise<{ key: string; told: OutcomeTold[] }[]> {
  const converter = h.client.options.loadedDataConverter.payloadConverter;
  return (await coordinatorEvents()).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== 'tellOutcomes') return [];
    const [key, told] = (a.input?.payloads ?? []).map((p) => converter.fromPayload(p));
    return [{ key: key as string, told: told as OutcomeTold[] }];
  });
}

describe('batched checkout', () => {
  it('one batch: an order intercepted at addCart stops alone, one needing approval joins only once approved, the rest are paid with one call each', async () => {
    await settings({ maxBatch: 3 });
    const before = {
      addCart: await calls('order/addCart'),
      confirm: await calls('order/addCartConfirm'),
      pay: await calls('pay/payBalanceV2'),
    };
    const plain = await startOrder(h, flowB('plain'));
    const spoiled = await startOrder(h, flowB('spoiled'));
    const approval = await startOrder(h, flowB('approve', { policy: 'approval' }));
    await reachStage(plain, Stage.CREATED, waitsForBatch);
    const toSpoil = await reachStage(spoiled, Stage.CREATED, waitsForBatch);
    // Changed at the supplier while it waits: the batch's addCart intercepts it.
    expect((await editOrder(toSpoil.svcOrderId!, { shippingZip: 'ABCDE' })).status).toBe(200);
    await reachStage(approval, Stage.AWAITING_APPROVAL, (s) =>
      /approvePayment/.test(s.waitingFor ?? ''),
    );
    expect((await coordinator()).waiting).toBe(2);
    expect(await calls('order/addCart')).toBe(before.addCart);

    await approval.executeUpdate(approvePaymentUpdate, { args: [{ by: 'test' }] });
    const paid = await reachStage(plain, Stage.AWAITING_SHIPMENT);
    const approvedPaid = await reachStage(approval, Stage.AWAITING_SHIPMENT);
    const stopped = await reachStage(spoiled, Stage.INTERCEPTED);
    expect(stopped.interception?.step).toBe('addCart');
    expect(stopped.interception?.reasons[0]?.code).toBe(100102);
    expect(paid.shipmentOrderId).toBe(approvedPaid.shipmentOrderId);
    expect(paid.timeline.some((t) => /checkout batch/.test(t.note ?? ''))).toBe(true);
    expect(await calls('order/addCart')).toBe(before.addCart + 1);
    expect(await calls('order/addCartConfirm')).toBe(before.confirm + 1);
    expect(await calls('pay/payBalanceV2')).toBe(before.pay + 1);

    // Fixed at the supplier, the intercepted order goes on alone.
    expect((await editOrder(stopped.svcOrderId!, { shippingZip: '90210' })).status).toBe(200);
    await spoiled.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    const alone = await reachStage(spoiled, Stage.AWAITING_SHIPMENT);
    expect(alone.shipmentOrderId).not.toBe(paid.shipmentOrderId);
  });

  it('a batch whose payment answer is lost is paid once, found at the supplier', async () => {
    await settings({ maxBatch: 2 });
    const paymentsBefore = (await accountStats(h.account.openId)).payments;
    await injectFault({
      openId: h.account.openId,
      path: 'shopping/pay/payBalanceV2',
      kind: 'commitThenDrop',
      times: 1,
    });
    const a = await startOrder(h, flowB('lost-a'));
    const b = await startOrder(h, flowB('lost-b'));
    const [sa, sb] = await Promise.all([
      reachStage(a, Stage.AWAITING_SHIPMENT),
      reachStage(b, Stage.AWAITING_SHIPMENT),
    ]);
    expect(sa.shipmentOrderId).toBe(sb.shipmentOrderId);
    expect((await accountStats(h.account.openId)).payments).toBe(paymentsBefore + 1);
    for (const s of [sa, sb]) {
      expect(s.timeline.some((t) => /shows the batch paid/.test(t.note ?? ''))).toBe(true);
    }
  });

  it('short of funds: the refused batch waits whole; later orders wait unconfirmed; the balance pays the oldest it covers', async () => {
    await settings({ maxBatch: 2 });
    await setBalance(0);
    const a = await startOrder(h, flowB('funds-a'));
    const b = await startOrder(h, flowB('funds-b'));
    const [sa, sb] = await Promise.all([
      reachStage(a, Stage.AWAITING_FUNDS),
      reachStage(b, Stage.AWAITING_FUNDS),
    ]);
    expect(sa.error?.code).toBe(1604000);
    expect(sa.waitingFor).toMatch(/shipment/);
    expect((await stageVisible(h, a)).stage).toBe(Stage.AWAITING_FUNDS);
    // While funds are short a new batch takes what the balance covers (nothing): c waits too.
    await settings({ maxBatch: 1 });
    const c = await startOrder(h, flowB('funds-c'));
    const sc = await reachStage(c, Stage.AWAITING_FUNDS);
    expect(sc.shipmentOrderId).toBeUndefined();
    // Enough for a and b (the oldest), not for c as well.
    const ab = (sa.amounts?.orderAmount ?? 0) + (sb.amounts?.orderAmount ?? 0);
    await setBalance(ab + (sc.amounts?.orderAmount ?? 0) / 2);
    await c.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    await reachStage(a, Stage.AWAITING_SHIPMENT);
    await reachStage(b, Stage.AWAITING_SHIPMENT);
    expect((await c.query(statusQuery)).stage).toBe(Stage.AWAITING_FUNDS);
    await eventually(
      'the coordinator holds only c',
      coordinator,
      (v) => v.awaitingFunds.length === 1,
    );
    await setBalance(10_000);
    await c.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    await reachStage(c, Stage.AWAITING_SHIPMENT);
  });

  it('a lone order is paid once no other order joins for the quiet period', async () => {
    await settings({ quietMs: 2_000, maxBatch: 50 });
    const lone = await startOrder(h, flowB('lone'));
    const paid = await reachStage(lone, Stage.AWAITING_SHIPMENT);
    expect(paid.timeline.some((t) => /checkout batch/.test(t.note ?? ''))).toBe(true);

    // Its wait on the batch cost one timer per bound (5 s here) and no activity to learn it.
    const events = (await lone.fetchHistory()).events ?? [];
    const scheduled = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(scheduled).not.toContain('checkoutWaitBound');
    // It joined through its worker's gathered signal: a local activity's marker.
    const joined = events.findIndex(
      (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    const outcome = events.findIndex(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'checkoutOutcome',
    );
    expect(joined).toBeGreaterThan(0);
    expect(outcome).toBeGreaterThan(joined);
    const timers = events
      .slice(joined, outcome)
      .flatMap((e) => e.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? []);
    expect(timers.length).toBeGreaterThan(0);
    expect(timers.map(Number)).toEqual(timers.map(() => 5));
  });

  it('cancel of an order waiting for its batch lets it go and deletes it at the supplier', async () => {
    await settings({ maxBatch: 50 });
    const waiting = await startOrder(h, flowB('cancel'));
    await reachStage(waiting, Stage.CREATED, waitsForBatch);
    expect((await stageVisible(h, waiting)).stage).toBe(Stage.CREATED);
    const answer = await waiting.executeUpdate(cancelUpdate, {
      args: [{ reason: 'customer asked' }],
    });
    expect(answer.accepted).toBe(true);
    const done = (await waiting.result()) as OrderStatus;
    expect(done.stage).toBe(Stage.CANCELLED);
    expect((await coordinator()).waiting).toBe(0);
    expect(await calls('order/deleteOrder')).toBeGreaterThan(0);
  });

  it('a paid batch is told its outcomes by one activity, not a signal per order, each order once, and a retried call tells none twice', async () => {
    await settings({ maxBatch: 3 });
    const orders = await Promise.all(
      ['tell-a', 'tell-b', 'tell-c'].map((t) => startOrder(h, flowB(t))),
    );
    const paid = await Promise.all(orders.map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)));
    expect(new Set(paid.map((p) => p.shipmentOrderId)).size).toBe(1);

    const ids = orders.map((o) => o.workflowId);
    // (A cancel's answer is still a signal of its own: only outcomes of releases go by activity.)
    const signalled = (await coordinatorEvents()).flatMap((e) => {
      const a = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      return a?.signalName === 'checkoutOutcome' ? [a.workflowExecution?.workflowId] : [];
    });
    expect(signalled.filter((id) => ids.includes(id ?? ''))).toEqual([]);
    const call = (await tellCalls()).find((c) => c.told.some((t) => ids.includes(t.workflowId)));
    expect(call?.told.map((t) => t.workflowId).sort()).toEqual([...ids].sort());
    expect(call?.told.every((t) => t.outcome.kind === 'paid')).toBe(true);
    for (const o of orders) expect(await outcomesOf(o)).toBe(1);

    // Another attempt of the same call (the first failed after it had signalled some orders):
    // the server drops each repeated signal by its request id, so no order hears it twice.
    const tell = tellActivities(h.client);
    const attempt = (told: OutcomeTold[]) =>
      new MockActivityEnvironment().run<[], TellAnswer, () => Promise<TellAnswer>>(() =>
        tell.tellOutcomes(call!.key, told),
      );
    expect((await attempt(call!.told)).notFound).toEqual([]);
    for (const o of orders) expect(await outcomesOf(o)).toBe(1);
    // An attempt that fails on one signal (an id the server refuses) names what it reached, so
    // the coordinator would signal only the rest itself; still no order hears it twice.
    const failed = await attempt([
      ...call!.told,
      { workflowId: '', outcome: call!.told[0]!.outcome },
    ])
      .then(() => undefined)
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ApplicationFailure);
    expect((failed as ApplicationFailure).type).toBe(TELL_INCOMPLETE);
    const reached = ((failed as ApplicationFailure).details?.[0] as { reached: string[] }).reached;
    expect([...reached].sort()).toEqual([...ids].sort());
    for (const o of orders) expect(await outcomesOf(o)).toBe(1);
  });
});
