/**
 * The account's one supplier queue against the real dev server: a backlog leaves in priority order
 * (payments first), whatever order it was scheduled in; and batch queries that workers of the
 * previous code scheduled on the retired batch queue are still run after the deploy.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { taskQueues, type TaskQueues } from '../../src/temporal/taskQueues.js';
import { createWorkers } from '../../src/worker.js';
import { SupplierPriority } from '../../src/durable/supplierPriority.js';
import { eventually } from '../support/eventually.js';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';
import type {
  ProbeMember,
  retiredBatchProbe,
  supplierProbe,
} from './fixtures/supplierQueue/index.js';
import { useFixtureWorkflows } from '../support/fixtureWorkflows.js';

const fx = useFixtureWorkflows(new URL('./fixtures/supplierQueue/index.ts', import.meta.url));
const run = `${process.pid}-${Date.now().toString(36)}`;

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount();
});

afterAll(async () => {
  await account.client.close();
});

/** A worker of the queue set's orders queue only: it schedules, nobody runs supplier calls. */
async function ordersWorker(queues: TaskQueues): Promise<{ stop: () => Promise<void> }> {
  const worker = await Worker.create({
    connection: fx.connection,
    namespace: fx.namespace,
    taskQueue: queues.orders,
    workflowBundle: fx.workflowBundle,
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

/** Waits until the workflow's one activity is scheduled (and waits in its queue's backlog). */
async function scheduled(handle: WorkflowHandle): Promise<void> {
  await eventually(
    `${handle.workflowId} scheduled its activity`,
    async () => (await handle.describe()).raw.pendingActivities?.length ?? 0,
    (n) => n === 1,
  );
}

it('with a backlog on the account queue, the payment overtakes the cart, creates, tracking and disputes scheduled before it', async () => {
  const queues = taskQueues(`priority-${run}`);
  const orders = await ordersWorker(queues);
  // Scheduled from the lowest class to the highest: first in, first out would run them as listed,
  // priorities run them in the reverse order of their classes.
  const calls: [ProbeMember, string][] = [
    ['supplier', 'getDisputeList'],
    ['batch', 'getProofOfDelivery'],
    ['supplierOnce', 'createOrderV3'],
    ['supplier', 'freightCalculate'],
    ['supplierOnce', 'uploadWaybillInfo'],
    ['supplierOnce', 'addCart'],
    ['supplierOnce', 'payBalanceV2'],
  ];
  const handles: WorkflowHandle[] = [];
  for (const [member, method] of calls) {
    const handle = await fx.client.workflow.start<typeof supplierProbe>('supplierProbe', {
      taskQueue: queues.orders,
      workflowId: `probe-${run}-${handles.length}-${method}`,
      args: [member, method],
    });
    await scheduled(handle);
    handles.push(handle);
  }

  // Now a worker of the supplier queue, one task at a time: it takes what the server gives first.
  const ran: { method: string; priority: number | undefined }[] = [];
  const record = (): Promise<void> => {
    const { activityType, priority } = Context.current().info;
    ran.push({ method: activityType, priority: priority?.priorityKey });
    return Promise.resolve();
  };
  const supplierWorker = await Worker.create({
    connection: fx.connection,
    namespace: fx.namespace,
    taskQueue: queues.supplier,
    activities: Object.fromEntries(calls.map(([, method]) => [method, record])),
    maxConcurrentActivityTaskExecutions: 1,
  });
  const supplierRunning = supplierWorker.run();
  try {
    await Promise.all(handles.map((h) => h.result()));
  } finally {
    supplierWorker.shutdown();
    await supplierRunning;
    await orders.stop();
  }

  expect(ran).toEqual([
    { method: 'payBalanceV2', priority: SupplierPriority.Money },
    { method: 'addCart', priority: SupplierPriority.Cart },
    { method: 'createOrderV3', priority: SupplierPriority.Create },
    { method: 'freightCalculate', priority: SupplierPriority.Create },
    { method: 'uploadWaybillInfo', priority: SupplierPriority.Create },
    { method: 'getProofOfDelivery', priority: SupplierPriority.Tracking },
    { method: 'getDisputeList', priority: SupplierPriority.Other },
  ]);
});

it('a batch query scheduled on the retired batch queue before the deploy is run by the new workers', async () => {
  const created = await account.client.api.createOrderV3(usOrder());
  const svcOrderId = created.orderId!;
  const queues = taskQueues(`retired-${run}`);

  // The previous code's worker schedules the query on the batch queue, then the deploy stops it.
  const previous = await ordersWorker(queues);
  const handle = await fx.client.workflow.start<typeof retiredBatchProbe>('retiredBatchProbe', {
    taskQueue: queues.orders,
    workflowId: `retired-probe-${run}`,
    args: [[svcOrderId]],
  });
  await scheduled(handle);
  await previous.stop();

  const workers = await createWorkers({
    address: inject('temporalAddress'),
    namespace: fx.namespace,
    queues,
    supplier: account.client,
    workflowBundle: fx.workflowBundle,
  });
  const running = workers.run();
  try {
    const found = await handle.result();
    expect(found.map((o) => o.svcOrderId)).toEqual([svcOrderId]);
  } finally {
    await workers.shutdown();
    await running;
  }
  const history = await handle.fetchHistory();
  const queuesScheduled = (history.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.taskQueue?.name != null
      ? [e.activityTaskScheduledEventAttributes.taskQueue.name]
      : [],
  );
  expect(queuesScheduled).toEqual([queues.retiredBatch]);
});
