/**
 * A worker killed while it holds a supplier call: the call's task goes back to the queue by its
 * heartbeat timeout (the worker beat for it while it ran), not after the start-to-close timeout,
 * and the order is created once. `dropflow worker` processes, a sandbox and a dev server of their
 * own, as the chaos run has them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import proto from '@temporalio/proto';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { chaosOrders } from '../../tools/src/chaos/orders.js';
import { startStack, type ChaosStack } from '../../tools/src/chaos/stack.js';
import { eventually } from '../support/eventually.js';

const { EventType, TimeoutType } = proto.temporal.api.enums.v1;
const CREATE = 'shopping/order/createOrderV3';

let workDir: string;
let stack: ChaosStack;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dropflow-killed-worker-'));
  stack = await startStack({
    workDir,
    ratePerSecond: 5,
    batchRatePerSecond: 2,
    trackingEverySeconds: 60,
    lifecycleStepMs: 1_000,
    batchLagMs: 0,
    gateway: false,
    loweredLimits: undefined,
    log: pino({ level: 'warn' }, pino.destination(2)),
    notes: [],
  });
}, 120_000);

afterAll(async () => {
  await stack.close();
  await rm(workDir, { recursive: true, force: true });
});

/** Waits until the order is at the supplier and past CREATED, not waiting for a person. */
async function madeAndGoingOn(orderNumber: string): Promise<void> {
  const status = await eventually(
    'the order to be made and go on',
    () => stack.orders.status(orderNumber),
    (s) => s.atSupplier === true && s.stage !== Stage.CREATED,
    120_000,
    500,
  );
  expect(status.stage).not.toBe(Stage.NEEDS_ATTENTION);
}

async function historyOf(orderNumber: string) {
  const handle = stack.orders.client.workflow.getHandle(stack.orders.workflowIdOf(orderNumber));
  return (await handle.fetchHistory()).events ?? [];
}

it('a create held by a worker that is killed comes back by its heartbeat timeout and is made once', async () => {
  // The supplier takes 20 s over the create: the worker is killed while it waits for the answer.
  // The supplier makes the order all the same, as a real one would.
  expect(
    await stack.controls.addFault({ path: CREATE, kind: 'latency', latencyMs: 20_000, times: 1 }),
  ).toBe(true);
  const [order] = await chaosOrders(1, 7, `killed${process.pid}`, 5);
  await stack.orders.submit(order!.body);
  await eventually(
    'the create to reach the supplier',
    () => stack.controls.stats(),
    (s) => (s.calls[CREATE] ?? 0) >= 1,
  );
  await stack.killWorker();

  await madeAndGoingOn(order!.orderNumber);
  const stats = await stack.controls.stats();
  expect(stats.ordersCreated).toBe(1);

  // The killed worker's attempt ended by the heartbeat it stopped sending.
  const events = await historyOf(order!.orderNumber);
  const creates = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'createOrderV3')
      .map((e) => String(e.eventId)),
  );
  const createTimedOut = events.filter(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT &&
      creates.has(String(e.activityTaskTimedOutEventAttributes?.scheduledEventId)),
  );
  expect(createTimedOut).toHaveLength(1);
  expect(
    createTimedOut[0]!.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo
      ?.timeoutType,
  ).toBe(TimeoutType.TIMEOUT_TYPE_HEARTBEAT);
}, 240_000);

it('a call slower than the heartbeat timeout is kept alive by its worker and answered once', async () => {
  expect(
    await stack.controls.addFault({ path: CREATE, kind: 'latency', latencyMs: 25_000, times: 1 }),
  ).toBe(true);
  const [order] = await chaosOrders(1, 8, `slow${process.pid}`, 5);
  const before = await stack.controls.stats();
  await stack.orders.submit(order!.body);
  await madeAndGoingOn(order!.orderNumber);
  const stats = await stack.controls.stats();
  expect(stats.ordersCreated - before.ordersCreated).toBe(1);
  expect((stats.calls[CREATE] ?? 0) - (before.calls[CREATE] ?? 0)).toBe(1);
  // The one create was the slow one: the sandbox held it 25 s.
  expect(stats.faultsInjected - before.faultsInjected).toBe(1);

  const events = await historyOf(order!.orderNumber);
  expect(
    events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT),
  ).toEqual([]);
}, 240_000);
