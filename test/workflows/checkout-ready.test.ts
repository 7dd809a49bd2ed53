/**
 * Orders ready for checkout reach their coordinator through their worker, which gathers an
 * account's ready orders into one `checkoutReadyMany` signal a second (Patch.ReadyBatched):
 * the coordinator, the busiest workflow of the server, takes a few signals instead of one per
 * order, and an order it does not hold (the signal lost) re-joins past its bound.
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import {
  checkoutStatusQuery,
  checkoutWithdrawSignal,
  checkoutWorkflowId,
} from '../../src/checkout/contract.js';
import { batchSizeOnly, NEVER } from '../support/checkoutSettings.js';
import { eventually } from '../support/eventually.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';

/** Orders ready within about a second of each other. */
const ORDERS = 12;

const h = useOrderHarness('ready', 10_000, {
  // Creates fast enough that the orders become ready within a second or two.
  ratePerSecond: 20,
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: ORDERS },
  checkoutOrderBoundMs: 3_000,
});

const settings = batchSizeOnly(h);

const coordinator = () => h.client.workflow.getHandle(checkoutWorkflowId(queuePrefix(h.queues)));

function flowB(tag: string) {
  return validOrder({
    ...usOrder({ orderNumber: orderNumber(tag) }),
    fulfillment: { flow: 'B', supplierLagSeconds: 2 },
  });
}

const waitsForBatch = (s: OrderStatus) => /checkout batch/.test(s.waitingFor ?? '');
const pays = async () =>
  takenCalls(await accountStats(h.account.openId), 'shopping/pay/payBalanceV2');

const eventsOf = async (w: WorkflowHandle): Promise<temporal.api.history.v1.IHistoryEvent[]> =>
  (await w.fetchHistory()).events ?? [];

/** The orders each ready signal the coordinator received carried, by signal name. */
async function readySignals(ids: string[]) {
  const converter = h.client.options.loadedDataConverter.payloadConverter;
  const signals = (await eventsOf(coordinator())).flatMap((e) => {
    const a = e.workflowExecutionSignaledEventAttributes;
    if (a?.signalName !== 'checkoutReady' && a?.signalName !== 'checkoutReadyMany') return [];
    const arg = converter.fromPayload(a.input!.payloads![0]!);
    const orders = (Array.isArray(arg) ? arg : [arg]) as { workflowId: string }[];
    const ours = orders.filter((o) => ids.includes(o.workflowId)).map((o) => o.workflowId);
    return ours.length === 0 ? [] : [{ name: a.signalName, orders: ours }];
  });
  return signals;
}

describe('ready orders reach the coordinator together', () => {
  it('many orders ready within a second reach it in a few signals, and each is paid once', async () => {
    await settings({ maxBatch: ORDERS });
    const paysBefore = await pays();
    const orders = await Promise.all(
      Array.from({ length: ORDERS }, (_, i) => startOrder(h, flowB(`ready-${i}`))),
    );
    const paid = await Promise.all(orders.map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)));
    expect(new Set(paid.map((p) => p.shipmentOrderId)).size).toBe(1);
    expect(await pays()).toBe(paysBefore + 1);

    const ids = orders.map((o) => o.workflowId);
    const signals = await readySignals(ids);
    expect(signals.every((s) => s.name === 'checkoutReadyMany')).toBe(true);
    expect(signals.flatMap((s) => s.orders).sort()).toEqual([...ids].sort());
    // A second or so of creates at 20 a second: a few flushes, not one signal per order.
    expect(signals.length).toBeLessThanOrEqual(ORDERS / 3);
    for (const o of orders) {
      const events = await eventsOf(o);
      // No signal of its own to the coordinator; one outcome.
      expect(events.some((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toBe(
        false,
      );
      const outcomes = events.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'checkoutOutcome',
      );
      expect(outcomes).toHaveLength(1);
    }
  });

  it('an order the coordinator does not hold (its signal lost) re-joins past its bound and is paid', async () => {
    await settings({ maxBatch: 2 });
    const paysBefore = await pays();
    const order = await startOrder(h, flowB('ready-lost'));
    await reachStage(order, Stage.CREATED, waitsForBatch);
    await eventually(
      'the coordinator holding the order',
      () => coordinator().query(checkoutStatusQuery),
      (v) => v.waiting === 1,
    );
    // What a coordinator on older code does with the signal: holds it, unhandled, and forgets it.
    await coordinator().signal(checkoutWithdrawSignal, { workflowId: order.workflowId });
    await eventually(
      'the order re-joined',
      async () => (await readySignals([order.workflowId])).length,
      (n) => n === 2,
      60_000,
    );
    const partner = await startOrder(h, flowB('ready-partner'));
    const [paid] = await Promise.all(
      [order, partner].map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)),
    );
    expect(
      paid!.timeline.some((t) => /checkout coordinator does not hold it/.test(t.note ?? '')),
    ).toBe(true);
    expect(await pays()).toBe(paysBefore + 1);
  });

  it('a coordinator terminated before its orders are ready is started again by their signal', async () => {
    await settings({ maxBatch: 2 });
    const before = (await coordinator().describe()).runId;
    await coordinator().terminate('the test terminates the coordinator');
    const orders = await Promise.all(
      ['ready-after-a', 'ready-after-b'].map((t) => startOrder(h, flowB(t))),
    );
    // Started again by their signal, with the workers' settings: the test closes the batch.
    await eventually(
      'a new coordinator holding both orders',
      async () => {
        const { runId, status } = await coordinator().describe();
        if (runId === before || status.name !== 'RUNNING') return 0;
        return (await coordinator().query(checkoutStatusQuery)).waiting;
      },
      (n) => n === 2,
    );
    await settings({ maxBatch: 2 });
    await Promise.all(orders.map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)));
  });
});
