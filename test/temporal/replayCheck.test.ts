/**
 * The deploy gate of `dropflow worker`: open orders replay through the code about to run, and a
 * change that would break them is caught before the worker takes a task.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Stage } from '../../src/client/definitions.js';
import { replayOpenWorkflows } from '../../src/temporal/replayCheck.js';
import { WORKFLOWS_PATH } from '../../src/worker.js';
import {
  orderHarness,
  reachStage,
  startOrder,
  validOrder,
  type OrderHarness,
} from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';

const CHANGED = fileURLToPath(new URL('./fixtures/changedWorkflows.ts', import.meta.url));
const quiet = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  log: () => undefined,
};

let h: OrderHarness;
beforeAll(async () => {
  h = await orderHarness('replay-check');
  // An order parked for weeks: it waits for approval.
  const handle = await startOrder(
    h,
    validOrder({ ...usOrder(), fulfillment: { flow: 'B', payment: { policy: 'approval' } } }),
  );
  await reachStage(handle, Stage.AWAITING_APPROVAL, (s) => s.waitingFor !== undefined);
});
afterAll(() => h.close());

it('open orders replay on the code that runs them', async () => {
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
  const check = await replayOpenWorkflows(h.client, {
    taskQueue: h.queues.orders,
    workflowBundle,
    limit: 10,
  });
  // The order and the account's checkout coordinator, which the workers started.
  expect(check.checked).toBe(2);
  expect(check.failures).toEqual([]);
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
