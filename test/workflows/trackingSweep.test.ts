/**
 * The tracking sweeper against the real dev server and sandbox. First, real paid sandbox orders,
 * each followed by a stand-in `fulfillOrder` workflow (fixtures/), and the real `trackingSweep` on
 * this file's own queue set: only orders whose supplier state moved past their stage are
 * signalled, never twice; answers are matched by every id an order may be known by; the supplier
 * is asked in batches (ceil(orders / 100) getOrderDetailBatch per page, never getOrderDetail); one
 * run holds one page of work. Then real order workflows: adopted after a lost create, told by a
 * webhook, forgotten by the supplier, or stuck in transit.
 */
import { fileURLToPath } from 'node:url';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
  orchestrationActivities,
  trackedOrdersQuery,
} from '../../src/tracking/orchestrationActivities.js';
import {
  orderWorkflowId,
  resumeUpdate,
  Stage,
  StaleReason,
  statusQuery,
  supplierEventSignal,
  supplierStatusSignal,
  type SupplierNews,
} from '../../src/order/contract.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { ensureTrackingSweeper } from '../../src/tracking/sweeperStart.js';
import {
  trackingSweeperId,
  sweeperStatusQuery,
  sweepNowSignal,
} from '../../src/tracking/contract.js';
import { createWorkers, type WorkerSet } from '../../src/worker.js';
import {
  chunk,
  IDS_PER_CALL,
  judge,
  newsFor,
  told,
  type TrackingPolicy,
} from '../../src/tracking/trackingChanges.js';
import { matchAnswers } from '../../src/tracking/trackingMatch.js';
import { afterSweep, bounded, emptyMemory } from '../../src/tracking/trackingMemory.js';
import type {
  trackingSweep,
  TrackingSweepInput,
  TrackingSweepSummary,
} from '../../src/tracking/trackingSweep.js';
import { eventually } from '../support/eventually.js';
import { recordHistories } from '../support/histories.js';
import {
  reachStage,
  startOrder,
  validOrder,
  visibleIn as orderVisibleIn,
  useOrderHarness,
} from '../support/orders.js';
import {
  accountStats,
  injectFault,
  newSandboxAccount,
  type TestAccount,
  takenCalls,
} from '../support/sandbox.js';
import { changeSettings } from '../sandbox/controls.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import {
  standInStateQuery,
  type StandInInput,
  type standInOrder,
} from './fixtures/standInOrder.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/index.ts', import.meta.url));
const DETAIL_BATCH = 'shopping/order/getOrderDetailBatch';
const DETAIL = 'shopping/order/getOrderDetail';
const PROOF = 'shopping/order/getProofOfDelivery';

const run = `${process.pid}-${Date.now().toString(36)}`;
const queues = taskQueues(`sweep-test-${run}`);

let account: TestAccount;
let workers: WorkerSet;
let running: Promise<void>;
let client: Client;
let sweeps = 0;

interface PaidOrder {
  orderNumber: string;
  svcOrderId: string;
  svcOrderCode: string;
  workflowId: string;
}
/** The first three paid orders and their stand-in workflows. */
const orders: PaidOrder[] = [];
/** Every stand-in started, for the clean-up. */
const standIns: string[] = [];

/** `count` new sandbox orders, paid together (one cart, one shipment), as the workflows do. */
async function paidOrders(count: number): Promise<PaidOrder[]> {
  const api = account.client.api;
  const made: PaidOrder[] = [];
  for (let i = 0; i < count; i += 1) {
    const order = usOrder();
    const created = await api.createOrderV3(order);
    made.push({
      orderNumber: order.orderNumber,
      svcOrderId: created.orderId!,
      svcOrderCode: '',
      workflowId: orderWorkflowId(order.orderNumber),
    });
  }
  const svcOrderIdList = made.map((o) => o.svcOrderId);
  await api.addCart({ svcOrderIdList });
  const { shipmentsId } = await api.addCartConfirm({ svcOrderIdList });
  const { payId } = await api.saveGenerateParentOrder({ shipmentOrderId: shipmentsId! });
  await api.payBalanceV2({ shipmentOrderId: shipmentsId!, payId: payId! });
  const details = await api.getOrderDetailBatch({ orderIds: svcOrderIdList });
  for (const o of made) {
    o.svcOrderCode = details.find((d) => d.svcOrderId === o.svcOrderId)!.svcOrderCode!;
    expect(o.svcOrderCode).not.toBe(o.svcOrderId);
  }
  return made;
}

/** Starts the stand-in order of `o`, known by `knownAs` (its svc order id unless told). */
async function followWithStandIn(
  o: PaidOrder,
  options: { knownAs?: string; deaf?: boolean } = {},
): Promise<void> {
  const args: StandInInput = {
    orderNumber: o.orderNumber,
    svcOrderId: options.knownAs ?? o.svcOrderId,
    ...(options.deaf !== undefined && { deaf: options.deaf }),
  };
  await client.workflow.start<typeof standInOrder>('fulfillOrder', {
    taskQueue: queues.orders,
    workflowId: o.workflowId,
    args: [args],
  });
  standIns.push(o.workflowId);
}

/** Visibility shows these stored supplier ids tracked in `stage` on this file's queue. */
async function visibleIn(svcOrderIds: string[], stage: Stage): Promise<void> {
  const ids = svcOrderIds.map((id) => `'${id}'`).join(', ');
  const query = `${trackedOrdersQuery(queues.orders)} AND FulfillmentStage = '${stage}' AND SvcOrderId IN (${ids})`;
  await eventually(
    `${svcOrderIds.join(',')} visible as ${stage}`,
    async () => (await client.workflow.count(query)).count,
    (n) => n === svcOrderIds.length,
  );
}

async function visibleAs(svcOrderId: string, stage: string): Promise<void> {
  const query = `WorkflowType = 'fulfillOrder' AND TaskQueue = '${queues.orders}' AND SvcOrderId = '${svcOrderId}' AND FulfillmentStage = '${stage}'`;
  await eventually(
    `${svcOrderId} visible as ${stage}`,
    async () => (await client.workflow.count(query)).count,
    (n) => n === 1,
  );
}

/** A summary of the current sweep code (not the frozen one). */
function current(result: unknown): TrackingSweepSummary {
  expect(result).toHaveProperty('memory');
  return result as TrackingSweepSummary;
}

/** One sweep on `on`'s orders queue, as the schedule starts it. */
async function sweepOn(
  on: Client,
  ordersQueue: string,
  input: TrackingSweepInput = {},
): Promise<TrackingSweepSummary> {
  sweeps += 1;
  return current(
    await on.workflow.execute<typeof trackingSweep>('trackingSweep', {
      taskQueue: ordersQueue,
      workflowId: `tracking-sweep-test:${run}:${sweeps}`,
      args: [input],
    }),
  );
}

const sweep = (input?: TrackingSweepInput) => sweepOn(client, queues.orders, input);

async function received(workflowId: string): Promise<SupplierNews[]> {
  return (await client.workflow.getHandle(workflowId).query(standInStateQuery)).received;
}

async function eventsOf(workflowId: string, runId: string) {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

/** The `supplierStatus` signals in a workflow's history: each one a billed action. */
async function statusSignals(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === supplierStatusSignal.name,
  ).length;
}

async function batchCalls(): Promise<{ detailBatch: number; detail: number; proof: number }> {
  const stats = await accountStats(account.openId);
  return {
    detailBatch: takenCalls(stats, DETAIL_BATCH),
    detail: takenCalls(stats, DETAIL),
    proof: takenCalls(stats, PROOF),
  };
}

beforeAll(async () => {
  let bundle: WorkflowBundleWithSourceMap;
  [account, bundle] = await Promise.all([
    newSandboxAccount(1_000),
    bundleWorkflowCode({ workflowsPath: FIXTURES }),
  ]);
  workers = await createWorkers({
    address: inject('temporalAddress'),
    namespace: inject('temporalNamespace'),
    queues,
    supplier: account.client,
    workflowBundle: bundle,
    shutdownGraceTime: '1s',
  });
  running = workers.run();
  client = workers.client;

  orders.push(...(await paidOrders(3)));
  for (const o of orders) await followWithStandIn(o);
  await visibleIn(
    orders.map((o) => o.svcOrderId),
    Stage.AWAITING_SHIPMENT,
  );
});

afterAll(async () => {
  // The stand-in orders are test fixtures; the sweeps are the real workflow.
  await recordHistories(client, queues.orders, ['trackingSweep', 'trackingSweeper']);
  for (const workflowId of standIns) {
    await client.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
  }
  await workers.shutdown();
  await running;
  await account.client.close();
});

describe('tracking sweep', () => {
  it('lists the tracked orders of its own queue from visibility, page by page', async () => {
    const activities = orchestrationActivities(client);
    const first = await activities.listTrackedOrders({ ordersQueue: queues.orders, pageSize: 2 });
    expect(first.orders).toHaveLength(2);
    expect(first.nextPageToken).toBeTruthy();
    const second = await activities.listTrackedOrders({
      ordersQueue: queues.orders,
      pageSize: 2,
      pageToken: first.nextPageToken!,
    });
    expect(second.nextPageToken).toBeUndefined();
    const listed = [...first.orders, ...second.orders];
    expect(listed.map((o) => o.svcOrderId).sort()).toEqual(orders.map((o) => o.svcOrderId).sort());
    for (const o of listed) {
      const order = orders.find((x) => x.svcOrderId === o.svcOrderId);
      expect(o).toEqual({
        workflowId: order?.workflowId,
        svcOrderId: o.svcOrderId,
        orderNumber: order?.orderNumber,
        stage: Stage.AWAITING_SHIPMENT,
      });
    }
    // Another account's queue sees none of them.
    const other = await activities.listTrackedOrders({
      ordersQueue: taskQueues(`other-${run}`).orders,
    });
    expect(other).toEqual({ orders: [] });
  });

  it('signals only the shipped order, once, with its tracking number; asks in batches', async () => {
    const [shipped, ...waiting] = orders;
    const advanced = await advance(shipped!.svcOrderId, 'SHIPPED');
    expect(advanced.status).toBe(200);
    const before = await batchCalls();

    const summary = await sweep();
    expect(summary).toMatchObject({
      runs: 1,
      orders: 3,
      detailCalls: Math.ceil(3 / IDS_PER_CALL),
      proofCalls: 0,
      batchCalls: 1,
      failedCalls: 0,
      missing: 0,
      signalled: 1,
      flagged: 0,
      closed: 0,
    });
    const news = await received(shipped!.workflowId);
    expect(news).toHaveLength(1);
    expect(news[0]).toMatchObject({
      messageId: `sweep:${shipped!.svcOrderId}:SHIPPED:0`,
      kind: 'status',
      svcOrderId: shipped!.svcOrderId,
      orderStatus: 'SHIPPED',
      logisticName: 'SvcPacket Ordinary',
    });
    expect(news[0]?.trackNumber).toMatch(/^SBX\d+$/);
    expect(news[0]?.trackingUrl).toBeTruthy();
    for (const o of waiting) expect(await received(o.workflowId)).toEqual([]);

    const after = await batchCalls();
    expect(after.detailBatch - before.detailBatch).toBe(1);
    expect(after.proof - before.proof).toBe(0);
    expect(after.detail).toBe(0);

    // The order's stage moved on: a second sweep has nothing new to tell anyone.
    await visibleAs(shipped!.svcOrderId, Stage.SHIPPED);
    const again = await sweep({ memory: summary.memory });
    expect(again).toMatchObject({ orders: 3, detailCalls: 1, proofCalls: 0, signalled: 0 });
    for (const o of orders) {
      expect(await received(o.workflowId)).toHaveLength(o === shipped ? 1 : 0);
    }
    const last = await batchCalls();
    expect(last.detailBatch - after.detailBatch).toBe(1);
    expect(last.detail).toBe(0);
  });

  it('asks for the proof of delivery of a delivered order and passes it on', async () => {
    const shipped = orders[0]!;
    await visibleAs(shipped.svcOrderId, Stage.SHIPPED);
    expect((await advance(shipped.svcOrderId, 'DELIVERED')).status).toBe(200);
    const before = await batchCalls();

    const summary = await sweep();
    expect(summary).toMatchObject({ orders: 3, detailCalls: 1, proofCalls: 1, signalled: 1 });
    const news = await received(shipped.workflowId);
    expect(news).toHaveLength(2);
    expect(news[1]).toMatchObject({
      messageId: `sweep:${shipped.svcOrderId}:DELIVERED:2`,
      orderStatus: 'DELIVERED',
    });
    expect(news[1]?.proofOfDelivery).toHaveLength(2);
    for (const o of orders.slice(1)) expect(await received(o.workflowId)).toEqual([]);

    const after = await batchCalls();
    expect(after.detailBatch - before.detailBatch).toBe(1);
    expect(after.proof - before.proof).toBe(1);
    expect(after.detail).toBe(0);

    // Completed with its proof: no longer tracked, no longer asked about.
    await visibleAs(shipped.svcOrderId, Stage.COMPLETED);
    expect(await sweep()).toMatchObject({ orders: 2, detailCalls: 1, signalled: 0 });
  });

  it('matches a shipped order known by its svcOrderCode, whose webhook was lost', async () => {
    const [o] = await paidOrders(1);
    // As a supplier whose create answers with the order's code would leave it.
    await followWithStandIn(o!, { knownAs: o!.svcOrderCode });
    await visibleIn([o!.svcOrderCode], Stage.AWAITING_SHIPMENT);
    expect((await advance(o!.svcOrderId, 'SHIPPED')).status).toBe(200);

    const summary = await sweep();
    expect(summary).toMatchObject({ orders: 3, missing: 0, signalled: 1, detailCalls: 1 });
    const news = await received(o!.workflowId);
    expect(news).toEqual([
      expect.objectContaining({
        messageId: `sweep:${o!.svcOrderCode}:SHIPPED:0`,
        svcOrderId: o!.svcOrderCode,
        orderStatus: 'SHIPPED',
      }),
    ]);
    await visibleAs(o!.svcOrderCode, Stage.SHIPPED);
  });

  it('finds an order by its order number when the supplier does not take the id it stored', async () => {
    const [o] = await paidOrders(1);
    const unknownId = `PLATFORM-${o!.svcOrderId}`;
    await followWithStandIn(o!, { knownAs: unknownId });
    await visibleIn([unknownId], Stage.AWAITING_SHIPMENT);
    expect((await advance(o!.svcOrderId, 'SHIPPED')).status).toBe(200);
    const before = await batchCalls();

    const summary = await sweep();
    // One call by the stored ids, one more by the number of the order it did not find.
    expect(summary).toMatchObject({ orders: 4, missing: 0, signalled: 1, detailCalls: 2 });
    expect((await batchCalls()).detailBatch - before.detailBatch).toBe(2);
    // Told under the code the supplier shows it by, never as the order's own id: the order settles
    // with a look-up whether that code is its own or a parcel of a split (docs/order.md, Parcels).
    expect(await received(o!.workflowId)).toEqual([
      expect.objectContaining({ orderStatus: 'SHIPPED', svcOrderId: o!.svcOrderId }),
    ]);
    await visibleAs(unknownId, Stage.SHIPPED);
  });

  it('keeps one run of a sweep to one page: its history does not grow with the number of orders', async () => {
    const pageSize = 2;
    sweeps += 1;
    const handle = await client.workflow.start<typeof trackingSweep>('trackingSweep', {
      taskQueue: queues.orders,
      workflowId: `tracking-sweep-test:${run}:${sweeps}`,
      args: [{ pageSize }],
    });
    const summary = current(await handle.result());
    expect(summary.orders).toBe(4);

    // Follow the chain of runs through their continue-as-new events.
    const perRun: number[] = [];
    let runId: string | undefined = handle.firstExecutionRunId;
    while (runId !== undefined) {
      const events = await eventsOf(handle.workflowId, runId);
      perRun.push(events.length);
      runId =
        events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ??
        undefined;
    }
    // A full last page may leave visibility a token to an empty page: one run more at most.
    const pages = Math.ceil(summary.orders / pageSize);
    expect(perRun.length).toBe(summary.runs);
    expect(summary.runs).toBeGreaterThanOrEqual(pages);
    expect(summary.runs).toBeLessThanOrEqual(pages + 1);
    for (const events of perRun) expect(events).toBeLessThanOrEqual(eventsPerRun(pageSize));

    // At 100 000 open orders and the default page of 1 000: 100 runs, each within the same bound
    // as any other run, far below Temporal's 10 240-event warning. (Before, one run held it all:
    // 1 000 detail calls alone were over 3 000 events, each result kept in one history.)
    expect(eventsPerRun(1_000)).toBeLessThan(10_240 / 10);
  });

  it('does not send an order the same news twice, however long its stage asks for it', async () => {
    const [o] = await paidOrders(1);
    await followWithStandIn(o!, { deaf: true });
    await visibleIn([o!.svcOrderId], Stage.AWAITING_SHIPMENT);
    expect((await advance(o!.svcOrderId, 'SHIPPED')).status).toBe(200);

    const first = await sweep();
    expect(first).toMatchObject({ signalled: 1, toldBefore: 0 });
    const second = await sweep({ memory: first.memory });
    const third = await sweep({ memory: second.memory });
    expect(second).toMatchObject({ signalled: 0, toldBefore: 1 });
    expect(third).toMatchObject({ signalled: 0, toldBefore: 1 });
    const handle = client.workflow.getHandle(o!.workflowId);
    expect(await statusSignals(handle)).toBe(1);
    orders.push(o!);
  });

  it('counts a workflow that closed before its signal instead of failing', async () => {
    const activities = orchestrationActivities(client);
    // Started on a queue nobody polls, then terminated: closed without ever running.
    const closedId = `tracking-sweep-test:closed:${run}`;
    const handle = await client.workflow.start('fulfillOrder', {
      taskQueue: taskQueues(`idle-${run}`).orders,
      workflowId: closedId,
      args: [],
    });
    await handle.terminate('closed for the test');
    const news: SupplierNews = { messageId: 'sweep:SO0:SHIPPED:0', kind: 'status' };
    const outcome = await activities.signalOrders([
      { workflowId: closedId, news },
      { workflowId: `tracking-sweep-test:never-started:${run}`, news },
    ]);
    expect(outcome).toEqual({ signalled: 0, closed: 2 });
  });
});

/**
 * The most events one run of a sweep may hold for a page of `pageSize` orders. Activities: the
 * previous sweep's memory (first run only), the listing, and per 100 orders a detail call, a
 * second call by order number, a proof call and a signal batch. Each activity: scheduled, started,
 * completed, and at most one workflow task (3 events) to take its result; plus the run's start,
 * its patch marker, its first task and its end.
 */
function eventsPerRun(pageSize: number): number {
  const activities = 2 + 4 * Math.ceil(pageSize / IDS_PER_CALL);
  return 6 * activities + 8;
}

describe('tracking sweep with real orders', () => {
  const h = useOrderHarness('sweep-orders');

  const sweepOrders = (input?: TrackingSweepInput) => sweepOn(h.client, h.queues.orders, input);

  async function waitingOrder(supplierLagSeconds = 3) {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds } });
    const handle = await startOrder(h, input);
    const status = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    await orderVisibleIn(h, input.order.orderNumber, Stage.AWAITING_SHIPMENT);
    return { handle, orderNumber: input.order.orderNumber, svcOrderId: status.svcOrderId! };
  }

  it('an order adopted after a lost create is matched; news a webhook brought is not sent again', async () => {
    await injectFault({
      path: 'shopping/order/createOrderV3',
      kind: 'commitThenDrop',
      openId: h.account.openId,
    });
    const { handle, orderNumber, svcOrderId } = await waitingOrder();
    const adopted = await handle.query(statusQuery);
    expect(adopted.timeline.some((t) => t.note?.includes('found at the supplier'))).toBe(true);

    // It ships, and the webhook says so before any sweep (as the gateway would signal it).
    expect((await advance(svcOrderId, 'SHIPPED')).status).toBe(200);
    const [shipped] = await h.account.client.api.getOrderDetailBatch({ orderIds: [svcOrderId] });
    await handle.signal(supplierEventSignal, {
      messageId: `webhook-${svcOrderId}-shipped`,
      kind: 'order',
      svcOrderId,
      orderStatus: 'SHIPPED',
      ...(shipped?.trackNumber != null && { trackNumber: shipped.trackNumber }),
    });
    await orderVisibleIn(h, orderNumber, Stage.SHIPPED);
    const quiet = await sweepOrders();
    expect(quiet).toMatchObject({ orders: 1, missing: 0, signalled: 0 });
    expect(await statusSignals(handle)).toBe(0);

    // Delivered without a webhook: the sweep finds it and completes it.
    expect((await advance(svcOrderId, 'DELIVERED')).status).toBe(200);
    expect(await sweepOrders({ memory: quiet.memory })).toMatchObject({ signalled: 1 });
    const done = await reachStage(handle, Stage.COMPLETED);
    expect(done.proofOfDelivery?.length).toBeGreaterThan(0);
    expect(await statusSignals(handle)).toBe(1);
  });

  it('an order the supplier stopped listing waits at NEEDS_ATTENTION with the reason; resume looks again', async () => {
    const { handle, orderNumber, svcOrderId } = await waitingOrder();
    const { openId } = h.account;
    // The supplier's queries no longer show the account's recent orders.
    expect((await changeSettings({ openId, batchLagMs: 86_400_000 })).status).toBe(200);
    let memory;
    try {
      const first = await sweepOrders({ missingAfterSeconds: 0 });
      expect(first).toMatchObject({ orders: 1, missing: 1, flagged: 0, detailCalls: 2 });
      expect((await handle.query(statusQuery)).stage).toBe(Stage.AWAITING_SHIPMENT);
      const second = await sweepOrders({ missingAfterSeconds: 0, memory: first.memory });
      expect(second).toMatchObject({ orders: 1, missing: 1, flagged: 1, signalled: 1 });
      memory = second.memory;
    } finally {
      await changeSettings({ openId, batchLagMs: null });
    }

    const flagged = await reachStage(handle, Stage.NEEDS_ATTENTION);
    expect(flagged.error).toMatchObject({ step: 'tracking' });
    expect(flagged.error?.message).toMatch(/^the supplier has not listed the order since /);
    expect(flagged.error?.message).toContain(`svc order id ${svcOrderId}`);
    expect(flagged.error?.message).toContain(`order number ${orderNumber}`);
    expect(flagged.waitingFor).toMatch(/resume/);
    await orderVisibleIn(h, orderNumber, Stage.NEEDS_ATTENTION, 'NeedsAttention = true');

    // The supplier shows it again; the operator resumes and the sweep follows it on.
    const resumed = await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    expect(resumed).toMatchObject({ accepted: true, stage: Stage.AWAITING_SHIPMENT });
    await orderVisibleIn(h, orderNumber, Stage.AWAITING_SHIPMENT, 'NeedsAttention = false');
    expect((await advance(svcOrderId, 'SHIPPED')).status).toBe(200);
    expect((await advance(svcOrderId, 'DELIVERED')).status).toBe(200);
    expect(await sweepOrders({ missingAfterSeconds: 0, memory })).toMatchObject({
      missing: 0,
      signalled: 1,
    });
    const done = await reachStage(handle, Stage.COMPLETED);
    expect(done.error).toBeUndefined();
  });

  it('an order whose supplier status has not moved for the limit is flagged; news moves it on', async () => {
    const { handle, orderNumber, svcOrderId } = await waitingOrder();
    expect((await advance(svcOrderId, 'SHIPPED')).status).toBe(200);
    // News comes first: the shipment, not a flag.
    const shipped = await sweepOrders({ staleAfterSeconds: 0 });
    expect(shipped).toMatchObject({ signalled: 1, flagged: 0 });
    await orderVisibleIn(h, orderNumber, Stage.SHIPPED);

    // No change since, and the limit (0 here, 14 days by default) has passed.
    const stale = await sweepOrders({ staleAfterSeconds: 0, memory: shipped.memory });
    expect(stale).toMatchObject({ signalled: 1, flagged: 1 });
    const flagged = await reachStage(handle, Stage.NEEDS_ATTENTION);
    expect(flagged.error?.message).toMatch(
      /^the supplier shows the order shipped and not delivered since \d{4}-/,
    );
    await orderVisibleIn(h, orderNumber, Stage.NEEDS_ATTENTION, 'NeedsAttention = true');

    // Delivered meanwhile; resume, and the next sweep brings the delivery.
    expect((await advance(svcOrderId, 'DELIVERED')).status).toBe(200);
    await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    await orderVisibleIn(h, orderNumber, Stage.SHIPPED, 'NeedsAttention = false');
    expect(await sweepOrders({ memory: stale.memory })).toMatchObject({ signalled: 1 });
    await reachStage(handle, Stage.COMPLETED);
  });
});

describe('tracking decisions', () => {
  it('splits 250 ids into 3 calls of at most 100', () => {
    const ids = Array.from({ length: 250 }, (_, i) => `SO${i}`);
    const calls = chunk(ids);
    expect(calls.map((c) => c.length)).toEqual([100, 100, 50]);
    expect(calls.flat()).toEqual(ids);
    expect(chunk([])).toEqual([]);
    expect(chunk(ids.slice(0, 100))).toHaveLength(1);
    expect(chunk(ids.slice(0, 101))).toHaveLength(2);
  });

  const order = (stage: Stage, svcOrderId = 'SO1') => ({
    workflowId: 'order:n',
    svcOrderId,
    orderNumber: 'n',
    stage,
  });
  const snap = (orderStatus: string, more = {}) => ({ svcOrderId: 'SO1', orderStatus, ...more });

  it('tells an order only what moves it forward', () => {
    expect(newsFor(order(Stage.AWAITING_SHIPMENT), snap('UNSHIPPED'), undefined)).toBeUndefined();
    expect(newsFor(order(Stage.PAID), snap('SHIPPED'), undefined)?.orderStatus).toBe('SHIPPED');
    expect(newsFor(order(Stage.SHIPPED), snap('SHIPPED'), undefined)).toBeUndefined();
    expect(newsFor(order(Stage.SHIPPED), snap('DELIVERED'), [])?.messageId).toBe(
      'sweep:SO1:DELIVERED:0',
    );
    expect(newsFor(order(Stage.DELIVERED), snap('DELIVERED'), [])).toBeUndefined();
    expect(newsFor(order(Stage.DELIVERED), snap('DELIVERED'), ['u1'])).toMatchObject({
      messageId: 'sweep:SO1:DELIVERED:1',
      proofOfDelivery: ['u1'],
    });
    expect(newsFor(order(Stage.SHIPPED), snap('CANCELLED'), undefined)?.orderStatus).toBe(
      'CANCELLED',
    );
    expect(newsFor(order(Stage.SHIPPED), undefined, undefined)).toBeUndefined();
  });

  it('matches answers by svcOrderCode, svcOrderId, orderId, then the order number', () => {
    const answer = {
      svcOrderId: 'SO9',
      svcOrderCode: 'SC9',
      orderId: '9009',
      orderNumber: 'N-9',
    };
    const tracked = [
      { workflowId: 'a', svcOrderId: 'SC9', stage: Stage.SHIPPED },
      { workflowId: 'b', svcOrderId: 'SO9', stage: Stage.SHIPPED },
      { workflowId: 'c', svcOrderId: '9009', stage: Stage.SHIPPED },
      { workflowId: 'd', svcOrderId: 'PLATFORM-1', orderNumber: 'N-9', stage: Stage.SHIPPED },
      { workflowId: 'e', svcOrderId: 'SO8', orderNumber: 'N-8', stage: Stage.SHIPPED },
    ];
    const matched = matchAnswers(tracked, [answer]);
    expect([...matched.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  const policy: TrackingPolicy = { staleAfterMs: 14 * 86_400_000, missingAfterMs: 3_600_000 };
  const t0 = Date.UTC(2026, 10, 1);
  const hour = 3_600_000;

  it('flags a missing order only after two sweeps in a row spanning the limit', () => {
    const o = order(Stage.SHIPPED);
    const one = judge(o, { answer: 'missing' }, undefined, policy, t0, 1);
    expect(one.news).toBeUndefined();
    // A failed call proves nothing: the count stays.
    const failed = judge(o, { answer: 'unknown' }, one.watch, policy, t0 + hour / 2, 2);
    expect(failed.watch).toMatchObject({ missingSince: t0, missingSweeps: 1 });
    const soon = judge(o, { answer: 'missing' }, failed.watch, policy, t0 + hour / 2, 3);
    expect(soon.news).toBeUndefined();
    const late = judge(o, { answer: 'missing' }, soon.watch, policy, t0 + hour, 4);
    expect(late.news).toMatchObject({
      kind: 'stale',
      stale: { reason: StaleReason.Missing, since: new Date(t0).toISOString() },
    });
    // Found again before that: the count starts over.
    const found = judge(
      o,
      { answer: 'found', snapshot: snap('SHIPPED'), proof: undefined },
      soon.watch,
      policy,
      t0 + hour,
      4,
    );
    expect(found.watch).toBeUndefined();
    // Not in a stage that waits for the supplier by itself: never flagged.
    const paid = judge(order(Stage.PAID), { answer: 'missing' }, soon.watch, policy, t0 + hour, 4);
    expect(paid.news).toBeUndefined();
  });

  it('flags an unmoved status from its own date, once a period, not when the view lags', () => {
    const shippedAt = '2026-11-01 00:00:00';
    const seen = {
      answer: 'found' as const,
      snapshot: snap('SHIPPED', { outWarehouseTime: shippedAt }),
      proof: undefined,
    };
    const o = order(Stage.SHIPPED);
    expect(judge(o, seen, undefined, policy, t0 + 13 * 86_400_000, 1).news).toBeUndefined();
    const flag = judge(o, seen, undefined, policy, t0 + 14 * 86_400_000, 2);
    expect(flag.news?.stale).toMatchObject({
      reason: StaleReason.Unmoved,
      since: '2026-11-01T00:00:00.000Z',
    });
    expect(flag.news?.stale?.note).toContain(
      'shipped and not delivered since 2026-11-01T00:00:00.000Z: no change for 14 days',
    );
    // Once flagged (and resumed), not again before another full period.
    const after = told(flag.watch, flag.news!, t0 + 14 * 86_400_000, 2);
    expect(judge(o, seen, after, policy, t0 + 27 * 86_400_000, 3).news).toBeUndefined();
    expect(judge(o, seen, after, policy, t0 + 28 * 86_400_000, 4).news?.kind).toBe('stale');
    // The supplier still shows UNSHIPPED for an order a webhook already moved to SHIPPED.
    const lagging = {
      answer: 'found' as const,
      snapshot: snap('UNSHIPPED', { paymentDate: shippedAt }),
      proof: undefined,
    };
    expect(judge(o, lagging, undefined, policy, t0 + 30 * 86_400_000, 5).news).toBeUndefined();
  });

  it('does not send the same news twice in a row, and forgets it once reflected', () => {
    const o = order(Stage.AWAITING_SHIPMENT);
    const seen = { answer: 'found' as const, snapshot: snap('SHIPPED'), proof: undefined };
    const first = judge(o, seen, undefined, policy, t0, 1);
    expect(first.news?.orderStatus).toBe('SHIPPED');
    const memo = told(first.watch, first.news!, t0, 1);
    const second = judge(o, seen, memo, policy, t0 + hour, 2);
    expect(second).toMatchObject({ toldBefore: true });
    expect(second.news).toBeUndefined();
    const moved = judge(order(Stage.SHIPPED), seen, second.watch, policy, t0 + 2 * hour, 3);
    expect(moved.watch).toBeUndefined();
  });

  it('remembers a bounded number of orders, the most useful first', () => {
    const memory = emptyMemory();
    memory.sweep = 3;
    for (let i = 0; i < 10; i += 1) memory.watches[`m${i}`] = { seen: 3, missingSince: t0 + i };
    memory.watches.f = { seen: 1, flaggedAt: t0 };
    memory.watches.t = { seen: 3, told: 'x' };
    const kept = bounded(memory, 5);
    expect(Object.keys(kept.watches).sort()).toEqual(['f', 'm0', 'm1', 'm2', 'm3']);
    // After the sweep: orders it did not list are forgotten, but for a flag still in its period.
    const later = afterSweep(
      { sweep: 3, watches: { f: { seen: 1, flaggedAt: t0 }, g: { seen: 2, told: 'y' } } },
      t0 + hour,
      policy.staleAfterMs,
    );
    expect(later.watches).toEqual({ f: { seen: 1, flaggedAt: t0 } });
  });
});

describe('tracking sweeper', () => {
  const sweeperQueues = taskQueues(`sweeper-test-${run}`);
  const label = `sweeper-${run}`;
  const carryLabel = `carry-${run}`;

  afterAll(async () => {
    for (const id of [trackingSweeperId(label), trackingSweeperId(carryLabel)]) {
      await client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    }
  });

  it('is one workflow per account, ensured by every start: settings change in place, and the schedule of an earlier release is deleted', async () => {
    // The way an earlier release swept: a schedule of the same name.
    await client.schedule.create({
      scheduleId: trackingSweeperId(label),
      spec: { intervals: [{ every: '1h' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'trackingSweep',
        taskQueue: sweeperQueues.orders,
        args: [{}],
      },
      state: { paused: true },
    });
    const first = await ensureTrackingSweeper(client, {
      queues: sweeperQueues,
      everySeconds: 3_600,
      accountLabel: label,
    });
    expect(first).toEqual({ workflowId: `tracking-sweep:${label}`, replacedSchedule: true });
    await expect(client.schedule.getHandle(first.workflowId).describe()).rejects.toThrow();

    const second = await ensureTrackingSweeper(client, {
      queues: sweeperQueues,
      everySeconds: 1_800,
      accountLabel: label,
      staleAfterHours: 48,
      missingAfterMinutes: 30,
    });
    expect(second).toEqual({ workflowId: first.workflowId, replacedSchedule: false });
    const handle = client.workflow.getHandle(first.workflowId);
    const described = await handle.describe();
    expect(described.type).toBe('trackingSweeper');
    expect(described.taskQueue).toBe(sweeperQueues.orders);
    // No worker polls this queue set: both ensures reached the one run as start and signal.
    const runs = await client.workflow.count(`WorkflowId = '${first.workflowId}'`);
    expect(runs.count).toBe(1);
    const signals = (await handle.fetchHistory()).events?.filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'sweeperSettings',
    );
    expect(signals).toHaveLength(2);
    expect(trackingSweeperId()).toBe('tracking-sweep:default');
  });

  it('sweeps again and again in one run, keeping what it told: news is not sent twice', async () => {
    const deaf = orders.at(-1)!;
    const signalsBefore = await statusSignals(client.workflow.getHandle(deaf.workflowId));
    const { workflowId } = await ensureTrackingSweeper(client, {
      queues,
      everySeconds: 3_600,
      accountLabel: carryLabel,
      pageSize: 2,
    });
    const handle = client.workflow.getHandle(workflowId);
    const finished = (n: number) =>
      eventually(
        `sweep ${n} done`,
        () => handle.query(sweeperStatusQuery),
        (s) => (s.last?.sweep ?? 0) >= n && s.nextSweepAt !== undefined,
        60_000,
      );
    const first = (await finished(1)).last!;
    await handle.signal(sweepNowSignal);
    const second = (await finished(first.sweep + 1)).last!;
    expect(second.sweep).toBe(first.sweep + 1);
    // Every tracked order of the file, page by page, in each sweep.
    expect(second.orders).toBe(first.orders);
    expect(first.orders).toBeGreaterThan(2);
    // Both know what the earlier sweeps told the order whose stage does not move.
    expect(second).toMatchObject({ signalled: 0, toldBefore: 1 });
    expect(await statusSignals(client.workflow.getHandle(deaf.workflowId))).toBe(signalsBefore);
    // Two sweeps, one run: the workflow list gains no row per sweep.
    const runs = await client.workflow.count(`WorkflowId = '${workflowId}'`);
    expect(runs.count).toBe(1);
  });
});
