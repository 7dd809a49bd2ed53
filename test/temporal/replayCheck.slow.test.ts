/**
 * The deploy gate of `dropflow worker`: open orders replay through the code about to run, and a
 * change that would break them is caught before the worker takes a task.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { beforeAll, expect, it } from 'vitest';
import { Stage } from '../../src/order/contract.js';
import { replayOpenWorkflows, WORKFLOW_TYPES } from '../../src/replayCheck.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { ensureTrackingSweeper } from '../../src/tracking/sweeperStart.js';
import { trackingSweeperId } from '../../src/tracking/contract.js';
import { WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { checkoutWorkflowId } from '../../src/checkout/contract.js';
import { eventually } from '../support/eventually.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { silentLogger as quiet } from '../support/logger.js';

const CHANGED = fileURLToPath(new URL('./fixtures/changedWorkflows.ts', import.meta.url));
const BROKEN = fileURLToPath(new URL('./fixtures/brokenWorkflows.ts', import.meta.url));
const h = useOrderHarness('replay-check');
let parkedOrder: string;
beforeAll(async () => {
  parkedOrder = await parkOrder();
});

it('open orders replay on the code that runs them', async () => {
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
  const stackTraces = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  const check = await replayOpenWorkflows(h.client, {
    taskQueue: h.queues.orders,
    workflowBundle,
    limit: 10,
  });
  // The order and the account's checkout coordinator, which the workers started.
  expect(check.checked).toBe(2);
  expect(check.failures).toEqual([]);
  // The workflows replayed in a thread of their own: a sandbox in this thread would have left its
  // global hooks behind (Error.prepareStackTrace, and a promise hook run for every promise).
  expect(Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace')).toEqual(stackTraces);
});

it('a change that would break an open order is refused before it runs', async () => {
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: CHANGED, logger: quiet });
  const check = await replayOpenWorkflows(h.client, {
    taskQueue: h.queues.orders,
    workflowBundle,
    limit: 10,
  });
  expect(check.checked).toBe(2);
  expect(check.failures).toHaveLength(1);
  expect(check.failures[0]?.type).toBe('fulfillOrder');
  expect(check.failures[0]?.error).toMatch(/nondetermin/i);
});

it('the gate also replays the singletons and the oldest open run of every type', async () => {
  // The account's tracking sweeper joins the coordinator, both older than the next order.
  await ensureTrackingSweeper(h.client, {
    queues: h.queues,
    everySeconds: 3_600,
    accountLabel: queuePrefix(h.queues),
  });
  const newest = await parkOrder();
  await eventually(
    'visibility lists the open workflows',
    async () =>
      (
        await h.client.workflow.count(
          `ExecutionStatus = 'Running' AND TaskQueue = '${h.queues.orders}'`,
        )
      ).count,
    (n) => n >= 4,
  );
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: BROKEN, logger: quiet });
  const check = await replayOpenWorkflows(h.client, {
    taskQueue: h.queues.orders,
    workflowBundle,
    limit: 1,
  });
  // The newest, the coordinator and the sweeper (singletons) and the first order (the oldest
  // fulfillOrder) all fail on a release that cannot run them: all were replayed.
  const prefix = queuePrefix(h.queues);
  expect(check.failures.map((f) => f.workflowId).sort()).toEqual(
    [newest, parkedOrder, checkoutWorkflowId(prefix), trackingSweeperId(prefix)].sort(),
  );
});

it('the gate knows every workflow type the worker runs', async () => {
  const workflows = await import('../../src/workflows.js');
  expect([...WORKFLOW_TYPES].sort()).toEqual(Object.keys(workflows).sort());
});

/** An order parked for weeks: it waits for approval. Its workflow id. */
async function parkOrder(): Promise<string> {
  const handle = await startOrder(
    h,
    validOrder({ ...usOrder(), fulfillment: { flow: 'B', payment: { policy: 'approval' } } }),
  );
  await reachStage(handle, Stage.AWAITING_APPROVAL, (s) => s.waitingFor !== undefined);
  return handle.workflowId;
}
