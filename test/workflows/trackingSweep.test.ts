/**
 * The tracking sweeper (architecture §5) against the real dev server and sandbox: real paid
 * sandbox orders, each followed by a stand-in `fulfillOrder` workflow (fixtures/), the real
 * `trackingSweep` on this file's own queue set. Only orders whose supplier state moved past their
 * stage are signalled, a repeated sweep sends nothing new, and the supplier is asked in batches:
 * ceil(open orders / 100) getOrderDetailBatch per sweep, never getOrderDetail.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { orchestrationActivities, trackedOrdersQuery } from '../../src/activities/orchestration.js';
import { orderWorkflowId, Stage, type SupplierNews } from '../../src/client/definitions.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { ensureTrackingSchedule, trackingScheduleId } from '../../src/temporal/trackingSchedule.js';
import { createWorkers, type WorkerSet } from '../../src/worker.js';
import { chunk, IDS_PER_CALL, newsFor } from '../../src/workflows/trackingChanges.js';
import type { trackingSweep, TrackingSweepSummary } from '../../src/workflows/trackingSweep.js';
import { eventually } from '../support/eventually.js';
import { recordHistories } from '../support/histories.js';
import { accountStats, newSandboxAccount, type TestAccount } from '../support/sandbox.js';
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
/** The paid orders and their stand-in workflows. */
const orders: { orderNumber: string; svcOrderId: string; workflowId: string }[] = [];

/** Visibility shows `svcOrderId` tracked in `stage` on this file's queue. */
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

async function sweep(): Promise<TrackingSweepSummary> {
  sweeps += 1;
  return client.workflow.execute<typeof trackingSweep>('trackingSweep', {
    taskQueue: queues.orders,
    workflowId: `tracking-sweep-test:${run}:${sweeps}`,
    args: [],
  });
}

async function received(workflowId: string): Promise<SupplierNews[]> {
  return (await client.workflow.getHandle(workflowId).query(standInStateQuery)).received;
}

async function batchCalls(): Promise<{ detailBatch: number; detail: number; proof: number }> {
  const { calls } = await accountStats(account.openId);
  return {
    detailBatch: calls[DETAIL_BATCH] ?? 0,
    detail: calls[DETAIL] ?? 0,
    proof: calls[PROOF] ?? 0,
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

  // Three paid flow-B orders, batched as the workflows batch them: one cart, one shipment.
  const api = account.client.api;
  for (let i = 0; i < 3; i += 1) {
    const order = usOrder();
    const created = await api.createOrderV3(order);
    orders.push({
      orderNumber: order.orderNumber,
      svcOrderId: created.orderId!,
      workflowId: orderWorkflowId(order.orderNumber),
    });
  }
  const svcOrderIdList = orders.map((o) => o.svcOrderId);
  await api.addCart({ svcOrderIdList });
  const { shipmentsId } = await api.addCartConfirm({ svcOrderIdList });
  const { payId } = await api.saveGenerateParentOrder({ shipmentOrderId: shipmentsId! });
  await api.payBalanceV2({ shipmentOrderId: shipmentsId!, payId: payId! });

  for (const o of orders) {
    await client.workflow.start<typeof standInOrder>('fulfillOrder', {
      taskQueue: queues.orders,
      workflowId: o.workflowId,
      args: [{ orderNumber: o.orderNumber, svcOrderId: o.svcOrderId } satisfies StandInInput],
    });
  }
  await visibleIn(svcOrderIdList, Stage.AWAITING_SHIPMENT);
});

afterAll(async () => {
  // The stand-in orders are test fixtures; the sweeps are the real workflow.
  await recordHistories(client, queues.orders, ['trackingSweep']);
  for (const o of orders) {
    await client.workflow
      .getHandle(o.workflowId)
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
      expect(o).toEqual({
        workflowId: orders.find((x) => x.svcOrderId === o.svcOrderId)?.workflowId,
        svcOrderId: o.svcOrderId,
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
      orders: 3,
      detailCalls: Math.ceil(3 / IDS_PER_CALL),
      proofCalls: 0,
      batchCalls: 1,
      failedCalls: 0,
      missing: 0,
      signalled: 1,
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
    const again = await sweep();
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

  const order = (stage: Stage) => ({ workflowId: 'order:n', svcOrderId: 'SO1', stage });
  const snap = (orderStatus: string) => ({ svcOrderId: 'SO1', orderStatus });

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
});

describe('tracking schedule', () => {
  const accountLabel = `test-${run}`;
  const scheduleQueues = taskQueues(`schedule-test-${run}`);

  afterAll(async () => {
    await client.schedule
      .getHandle(trackingScheduleId(accountLabel))
      .delete()
      .catch(() => undefined);
  });

  it('creates one schedule per account and updates it in place, keeping a pause', async () => {
    const first = await ensureTrackingSchedule(client, {
      queues: scheduleQueues,
      everySeconds: 3_600,
      accountLabel,
    });
    expect(first).toEqual({ scheduleId: `tracking-sweep:${accountLabel}`, created: true });
    const handle = client.schedule.getHandle(first.scheduleId);
    await handle.pause('paused by an operator');

    const second = await ensureTrackingSchedule(client, {
      queues: scheduleQueues,
      everySeconds: 1_800,
      accountLabel,
    });
    expect(second).toEqual({ scheduleId: first.scheduleId, created: false });

    const described = await handle.describe();
    expect(described.spec.intervals?.map((i) => i.every)).toEqual([1_800_000]);
    expect(described.policies.overlap).toBe('SKIP');
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'trackingSweep',
      taskQueue: scheduleQueues.orders,
      workflowId: first.scheduleId,
    });
    expect(described.state).toMatchObject({ paused: true, note: 'paused by an operator' });
    expect(trackingScheduleId()).toBe('tracking-sweep:default');
  });
});
