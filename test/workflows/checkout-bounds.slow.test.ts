/**
 * An order never waits unboundedly on its account's checkout coordinator: a coordinator that is
 * terminated strands no order, a cancel does not hang on it, and visibility shows the stage the
 * status shows. Orders confirmed into one shipment share its money: paid once for all, and none
 * cancelled while a sibling may pay it. Batches here never close by time (the test closes them).
 */
import { describe, expect, it } from 'vitest';
import { cancelUpdate, Stage, statusQuery, type OrderStatus } from '../../src/order/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import {
  checkoutOutcomeSignal,
  checkoutStatusQuery,
  checkoutWorkflowId,
} from '../../src/checkout/contract.js';
import { batchSizeOnly, NEVER } from '../support/checkoutSettings.js';
import { eventually } from '../support/eventually.js';
import {
  reachStage,
  resumeWhenWaiting,
  stageVisible,
  startOrder,
  validOrder,
  useOrderHarness,
} from '../support/orders.js';
import {
  accountStats,
  clearFaults,
  injectFault,
  setBalance as setAccountBalance,
  takenCalls,
} from '../support/sandbox.js';
import { changeSettings } from '../sandbox/controls.js';
import { ORDER_DETAIL_BATCH } from './reconcile-support.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';
import { OrderStatus as SupplierStatus } from '../../src/supplier/api/constants.js';

const h = useOrderHarness('bounds', 10_000, {
  checkout: { quietMs: 60_000, maxWaitMs: NEVER, maxBatch: 50 },
  checkoutOrderBoundMs: 3_000,
});

const coordinatorId = () => checkoutWorkflowId(queuePrefix(h.queues));
const coordinator = () => h.client.workflow.getHandle(coordinatorId());

const settings = batchSizeOnly(h);

function flowB(tag: string) {
  return validOrder({
    ...usOrder({ orderNumber: orderNumber(tag) }),
    fulfillment: { flow: 'B', supplierLagSeconds: 2 },
  });
}

const PAY = 'shopping/pay/payBalanceV2';
const CONFIRM = 'shopping/order/addCartConfirm';

const waitsForBatch = (s: OrderStatus) => /checkout batch/.test(s.waitingFor ?? '');

const setBalance = (amount: number) => setAccountBalance(h.account.openId, amount);

async function terminateCoordinator(): Promise<void> {
  await coordinator().terminate('the test terminates the coordinator');
}

describe('an order and a coordinator that is gone', () => {
  it('a terminated coordinator strands no order: it is listed as it stands, re-joins, and is paid', async () => {
    await settings({ quietMs: 60_000 });
    const order = await startOrder(h, flowB('stranded'));
    await reachStage(order, Stage.CREATED, waitsForBatch);
    expect((await stageVisible(h, order)).stage).toBe(Stage.CREATED);
    await terminateCoordinator();

    // Past its bound the order finds no coordinator, sees it uncarted and starts one again.
    await eventually(
      'a coordinator holding the order again',
      async () => {
        const { status } = await coordinator().describe();
        return status.name === 'RUNNING'
          ? (await coordinator().query(checkoutStatusQuery)).waiting
          : 0;
      },
      (n) => n === 1,
      60_000,
    );
    expect((await order.query(statusQuery)).stage).toBe(Stage.CREATED);
    await settings({ quietMs: 500 });
    const paid = await reachStage(order, Stage.AWAITING_SHIPMENT);
    expect(
      paid.timeline.some((t) => /checkout coordinator does not hold it/.test(t.note ?? '')),
    ).toBe(true);
    await stageVisible(h, order);
  });

  it('a cancel while the coordinator is gone is decided from the order and the supplier, and never hangs', async () => {
    await settings({ quietMs: 60_000 });
    const order = await startOrder(h, flowB('cancel-gone'));
    await reachStage(order, Stage.CREATED, waitsForBatch);
    await terminateCoordinator();
    const answer = await order.executeUpdate(cancelUpdate, {
      args: [{ reason: 'customer asked' }],
    });
    expect(answer.accepted).toBe(true);
    const done = (await order.result()) as OrderStatus;
    expect(done.stage).toBe(Stage.CANCELLED);
    expect(done.timeline.some((t) => /deleted .* at the supplier/.test(t.note ?? ''))).toBe(true);
    expect((await order.query(statusQuery)).stage).toBe(Stage.CANCELLED);
    await stageVisible(h, order);
  });

  it('orders a vanished batch confirmed into one shipment pay it once: one pays, the others find it paid', async () => {
    await settings({ quietMs: NEVER });
    const a = await startOrder(h, flowB('vanished-a'));
    const b = await startOrder(h, flowB('vanished-b'));
    const sa = await reachStage(a, Stage.CREATED, waitsForBatch);
    const sb = await reachStage(b, Stage.CREATED, waitsForBatch);
    // The batch carted and confirmed them, then its coordinator was terminated before it paid
    // (or told them): neither knows its shipment, nor that another order shares it.
    const ids = [sa.svcOrderId!, sb.svcOrderId!];
    await h.account.client.api.addCart({ svcOrderIdList: ids });
    const shipmentOrderId = (await h.account.client.api.addCartConfirm({ svcOrderIdList: ids }))
      .shipmentsId!;
    const before = await accountStats(h.account.openId);
    await terminateCoordinator();

    const [paidA, paidB] = await Promise.all([
      reachStage(a, Stage.AWAITING_SHIPMENT),
      reachStage(b, Stage.AWAITING_SHIPMENT),
    ]);
    // The one that paid names the shipment. The other learns it when the payer tells it, unless
    // its own look-up already showed it paid (the supplier names no shipment there).
    const [payer, other] =
      paidA.shipmentOrderId === shipmentOrderId ? [paidA, paidB] : [paidB, paidA];
    expect(payer.shipmentOrderId).toBe(shipmentOrderId);
    if (other.shipmentOrderId !== shipmentOrderId) {
      expect(other.shipmentOrderId).toBeUndefined();
      expect(other.timeline.some((t) => /an order sharing it/.test(t.note ?? ''))).toBe(true);
    }
    const after = await accountStats(h.account.openId);
    expect(after.payments).toBe(before.payments + 1);
    // Never a payment sent for a shipment already paid.
    expect(after.repeatedPaymentsRefused).toBe(before.repeatedPaymentsRefused);
  });
  it('a payer terminated before it paid holds up no sibling: past the bound the next order pays the shipment once, the others find it paid', async () => {
    await settings({ quietMs: NEVER });
    await setBalance(0);
    try {
      const handles = await Promise.all(
        ['a', 'b', 'c'].map((t) => startOrder(h, flowB(`payer-gone-${t}`))),
      );
      const ids = (
        await Promise.all(handles.map((o) => reachStage(o, Stage.CREATED, waitsForBatch)))
      ).map((s) => s.svcOrderId!);
      // A batch carted and confirmed them into one shipment, then its coordinator was terminated.
      await h.account.client.api.addCart({ svcOrderIdList: ids });
      const shipmentOrderId = (await h.account.client.api.addCartConfirm({ svcOrderIdList: ids }))
        .shipmentsId!;
      await terminateCoordinator();
      // The smallest svc order id pays: it finds the balance short and waits for funds; the
      // others wait for it to pay.
      const [payer, ...siblings] = handles
        .map((handle, i) => ({ handle, id: ids[i]! }))
        .sort((x, y) => (x.id < y.id ? -1 : 1));
      await reachStage(payer!.handle, Stage.AWAITING_FUNDS);
      await Promise.all(
        siblings.map((s) =>
          reachStage(s.handle, Stage.AWAITING_PAYMENT, (st) =>
            new RegExp(`to be paid by its order ${payer!.id}`).test(st.waitingFor ?? ''),
          ),
        ),
      );
      const before = await accountStats(h.account.openId);
      // An operator terminates the payer mid-flight; the money comes.
      await payer!.handle.terminate('an operator terminates the payer');
      await setBalance(10_000);

      const paid = await Promise.all(
        siblings.map((s) => reachStage(s.handle, Stage.AWAITING_SHIPMENT)),
      );
      for (const p of paid) {
        expect(p.shipmentOrderId).toBe(shipmentOrderId);
        expect(p.timeline.map((t) => t.stage)).toContain(Stage.PAID);
      }
      expect(new Set(paid.map((p) => p.payId)).size).toBe(1);
      expect(
        paid[0]!.timeline.some((t) =>
          new RegExp(`its order ${payer!.id}, .* runs no more .*: this order pays it`).test(
            t.note ?? '',
          ),
        ),
      ).toBe(true);
      const after = await accountStats(h.account.openId);
      expect(takenCalls(after, PAY) - takenCalls(before, PAY)).toBe(1);
      expect(after.payments).toBe(before.payments + 1);
      expect(after.repeatedPaymentsRefused).toBe(before.repeatedPaymentsRefused);
    } finally {
      await setBalance(10_000);
    }
  });
});

describe('a shipment shared by orders of one batch', () => {
  /**
   * Two orders confirmed into one shipment and handed back to go on alone, as the coordinator
   * tells it when it cannot pay the shipment itself; the balance is empty, so both wait for funds.
   */
  async function sharedShipment(tag: string) {
    await settings({ quietMs: NEVER });
    await setBalance(0);
    const a = await startOrder(h, flowB(`${tag}-a`));
    const b = await startOrder(h, flowB(`${tag}-b`));
    const sa = await reachStage(a, Stage.CREATED, waitsForBatch);
    const sb = await reachStage(b, Stage.CREATED, waitsForBatch);
    const ids = [sa.svcOrderId!, sb.svcOrderId!];
    await h.account.client.api.addCart({ svcOrderIdList: ids });
    const confirmed = await h.account.client.api.addCartConfirm({ svcOrderIdList: ids });
    const shipmentOrderId = confirmed.shipmentsId!;
    for (const [me, other] of [
      [a, b],
      [b, a],
    ] as const) {
      await me.signal(checkoutOutcomeSignal, {
        kind: 'alone',
        why: 'its batch B9 handed it back',
        progress: { inCart: true, shipmentOrderId, siblings: [other.workflowId] },
      });
    }
    await reachStage(a, Stage.AWAITING_FUNDS);
    await reachStage(b, Stage.AWAITING_FUNDS);
    return { a, b, shipmentOrderId };
  }

  it('no sibling is cancelled: cancel is refused, naming the shipment paid whole with its other orders', async () => {
    const { b, shipmentOrderId } = await sharedShipment('refuse');
    const refusal = await b
      .executeUpdate(cancelUpdate, { args: [{ reason: 'customer asked' }] })
      .then(
        () => undefined,
        (e: unknown) => e as { cause?: { message?: string } },
      );
    expect(refusal?.cause?.message).toMatch(
      new RegExp(
        `cancel refused: .*shipment ${shipmentOrderId}.*pays only whole, with its 1 other order`,
      ),
    );
    expect((await stageVisible(h, b)).stage).toBe(Stage.AWAITING_FUNDS);
  });

  it('one payment settles every sibling: the other ends PAID with the same payId, paid once', async () => {
    const { a, b, shipmentOrderId } = await sharedShipment('shared');
    const paymentsBefore = (await accountStats(h.account.openId)).payments;
    await setBalance(10_000);
    await resumeWhenWaiting(a);
    const paidA = await reachStage(a, Stage.AWAITING_SHIPMENT);
    const paidB = await reachStage(b, Stage.AWAITING_SHIPMENT);
    expect(paidB.payId).toBe(paidA.payId);
    expect(paidB.shipmentOrderId).toBe(shipmentOrderId);
    expect(paidB.timeline.some((t) => /paid with its shipment/.test(t.note ?? ''))).toBe(true);
    expect((await accountStats(h.account.openId)).payments).toBe(paymentsBefore + 1);
  });
});

describe('an order its batch paid', () => {
  /** Long enough for the test to see the batch's confirmation sent before it acts. */
  const CONFIRM_LATENCY_MS = 15_000;

  it('handed back late as only in the cart, takes the payment its own confirmation finds instead of waiting for a person', async () => {
    await settings({ quietMs: NEVER });
    const order = await startOrder(h, flowB('late-hand-back'));
    const { svcOrderId } = await reachStage(order, Stage.CREATED, waitsForBatch);
    // Its batch carted, confirmed and paid it, and a hand-back that lagged behind says it is in
    // the cart: the supplier answers the order's own confirmation without a shipment.
    const api = h.account.client.api;
    await api.addCart({ svcOrderIdList: [svcOrderId!] });
    const shipmentOrderId = (await api.addCartConfirm({ svcOrderIdList: [svcOrderId!] }))
      .shipmentsId!;
    const { payId } = await api.saveGenerateParentOrder({ shipmentOrderId });
    await api.payBalanceV2({ shipmentOrderId, payId: payId! });
    const before = await accountStats(h.account.openId);
    await order.signal(checkoutOutcomeSignal, {
      kind: 'alone',
      why: 'its batch B9 handed it back',
      progress: { inCart: true },
    });
    // The coordinator, which still lists it, goes: no later batch takes it.
    await terminateCoordinator();

    const done = await reachStage(order, Stage.AWAITING_SHIPMENT);
    expect(done.timeline.map((t) => t.stage)).not.toContain(Stage.NEEDS_ATTENTION);
    expect(
      done.timeline.some((t) => /paid with its shipment, by its checkout batch/.test(t.note ?? '')),
    ).toBe(true);
    const after = await accountStats(h.account.openId);
    expect(takenCalls(after, PAY)).toBe(takenCalls(before, PAY));
    expect(after.payments).toBe(before.payments);
  });

  it('never waits for a person: its coordinator gone while its batch paid it, and the supplier still showing it in the cart, it looks its confirmation up and takes the payment', async () => {
    const openId = h.account.openId;
    await settings({ quietMs: NEVER });
    try {
      const order = await startOrder(
        h,
        validOrder({
          ...usOrder({ orderNumber: orderNumber('paid-by-batch') }),
          fulfillment: { flow: 'B', supplierLagSeconds: 20 },
        }),
      );
      const { svcOrderId } = await reachStage(order, Stage.CREATED, waitsForBatch);
      // The batch's confirmation acts late; the answer to its payment is lost.
      await injectFault({ openId, path: CONFIRM, kind: 'latency', latencyMs: CONFIRM_LATENCY_MS });
      await injectFault({ openId, path: PAY, kind: 'commitThenDrop' });
      const before = await accountStats(openId);
      await settings({ quietMs: 500 });
      // While the confirmation is under way, the supplier's view stops with the order in the
      // cart: the batch looking its payment up holds the order past the order's bound.
      await eventually(
        'the batch to send its confirmation',
        () => accountStats(openId),
        (s) => takenCalls(s, CONFIRM) > takenCalls(before, CONFIRM),
      );
      await changeSettings({ openId, batchViewAt: Date.now() });
      await eventually(
        'the batch to pay the order (its answer lost)',
        () => accountStats(openId),
        (s) => s.payments === before.payments + 1,
        90_000,
      );
      const [shown] = await h.account.client.api.getOrderDetailBatch({ orderIds: [svcOrderId!] });
      expect(shown?.orderStatus).toBe(SupplierStatus.InCart);
      const held = await coordinator().query(checkoutStatusQuery);
      expect(held.batches.flatMap((b) => b.orderIds ?? [])).toContain(order.workflowId);
      // Its coordinator goes before it tells the order: the order asks past its bound, finds it
      // gone, sees itself only in the cart and looks its confirmation up; then the view moves on.
      await terminateCoordinator();
      await reachStage(order, Stage.IN_CART, (s) =>
        /the outcome of addCartConfirm/.test(s.waitingFor ?? ''),
      );
      const looking = takenCalls(await accountStats(openId), ORDER_DETAIL_BATCH);
      await eventually(
        'a look-up of its confirmation',
        () => accountStats(openId),
        (s) => takenCalls(s, ORDER_DETAIL_BATCH) > looking,
      );
      await changeSettings({ openId, batchViewAt: null });

      const done = await reachStage(order, Stage.AWAITING_SHIPMENT);
      expect(done.timeline.map((t) => t.stage)).not.toContain(Stage.NEEDS_ATTENTION);
      expect(done.timeline.map((t) => t.stage)).toContain(Stage.PAID);
      expect(
        done.timeline.some((t) => /checkout coordinator does not hold it/.test(t.note ?? '')),
      ).toBe(true);
      const after = await accountStats(openId);
      // Paid once, by its batch: the order sent no payment of its own.
      expect(after.payments).toBe(before.payments + 1);
      expect(takenCalls(after, PAY) - takenCalls(before, PAY)).toBe(1);
      expect(after.repeatedPaymentsRefused).toBe(before.repeatedPaymentsRefused);
    } finally {
      await clearFaults(openId);
      await changeSettings({ openId, batchViewAt: null });
    }
  });
});
