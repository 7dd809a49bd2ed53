/**
 * Retiring frozen code: a worker whose release removed a frozen code set refuses to start while a
 * run that may need it is open on its queue, and names the runs; `dropflow frozen` counts them
 * (frozenRuns.slow.test.ts: it starts the command).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { FROZEN_SETS, type FrozenSet } from '../../src/frozen/sets.js';
import { Patch } from '../../src/durable/versions.js';
import {
  refuseRunsOfRetiredCode,
  RetiredCodeNeededError,
  runsBeforePatch,
} from '../../src/cli/frozenRuns.js';
import { WORKFLOW_TYPES } from '../../src/replayCheck.js';
import { eventually } from '../support/eventually.js';
import {
  orderHarness,
  reachStage,
  startOrder,
  validOrder,
  type OrderHarness,
} from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';

/** A set retired by a release, whose patch shipped after the test's orders started. */
const retired: FrozenSet = {
  id: 'test-retired',
  code: 'src/frozen/test',
  patch: Patch.ReconcilingSteps,
  workflowTypes: ['fulfillOrder'],
  shipped: '2999-01-01T00:00:00Z',
  retired: true,
};

let h: OrderHarness;
let parked: string[];
beforeAll(async () => {
  h = await orderHarness('frozen-runs');
  parked = [await parkOrder(), await parkOrder()];
  await eventually(
    'visibility lists the parked orders',
    () => runsBeforePatch(h.client, retired, { taskQueue: h.queues.orders, limit: 10 }),
    (found) => found.count >= 2,
  );
});
afterAll(() => h.close());

it('refuses to start while open runs need removed code, and names them', async () => {
  const refusal = await refuseRunsOfRetiredCode(h.client, {
    taskQueue: h.queues.orders,
    sets: [retired],
  }).catch((err: unknown) => err);
  expect(refusal).toBeInstanceOf(RetiredCodeNeededError);
  const { open } = refusal as RetiredCodeNeededError;
  expect(open.map((o) => [o.set.id, o.count, [...o.workflowIds].sort()])).toEqual([
    ['test-retired', 2, [...parked].sort()],
  ]);
  for (const id of parked) expect((refusal as Error).message).toContain(id);
});

it('names at most the asked number of runs, and how many more there are', async () => {
  const refusal = await refuseRunsOfRetiredCode(h.client, {
    taskQueue: h.queues.orders,
    sets: [retired],
    limit: 1,
  }).catch((err: unknown) => err);
  expect((refusal as RetiredCodeNeededError).open[0]?.workflowIds).toHaveLength(1);
  expect((refusal as Error).message).toMatch(/2 open fulfillOrder started before .*… 1 more/);
});

it('starts when the code is still there, or no open run started before the patch', async () => {
  const kept = { ...retired, retired: false };
  const before = { ...retired, shipped: '2020-01-01T00:00:00Z' };
  const otherType = { ...retired, workflowTypes: ['trackingSweep'] };
  for (const set of [kept, before, otherType]) {
    await expect(
      refuseRunsOfRetiredCode(h.client, { taskQueue: h.queues.orders, sets: [set] }),
    ).resolves.toBeUndefined();
  }
  // Another account's queue: its workers do not run these orders.
  await expect(
    refuseRunsOfRetiredCode(h.client, { taskQueue: 'another-account/orders', sets: [retired] }),
  ).resolves.toBeUndefined();
});

it('the registry names workflow types the worker runs and patches in force', () => {
  const patches = new Set<string>(Object.values(Patch));
  for (const set of FROZEN_SETS) {
    expect(WORKFLOW_TYPES).toEqual(expect.arrayContaining([...set.workflowTypes]));
    expect(patches.has(set.patch), set.id).toBe(true);
    expect(Number.isNaN(Date.parse(set.shipped)), set.id).toBe(false);
  }
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
