/**
 * No singleton without a supervisor: an operator may terminate an account's tracking sweeper or
 * checkout coordinator at any moment, and the orders that wait on them (for shipment news, for a
 * batch) must not wait on something that is gone. Every worker looks at them periodically and
 * starts again one that no longer runs.
 */
import { describe, expect, it } from 'vitest';
import { checkoutWorkflowId } from '../../src/checkout/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { trackingSweeperId } from '../../src/tracking/contract.js';
import { eventually } from '../support/eventually.js';
import { useOrderHarness } from '../support/orders.js';

const h = useOrderHarness('supervise', undefined, {
  singletons: { trackingSweeper: { everySeconds: 3_600 }, superviseEveryMs: 500 },
});

async function restartedAfterTermination(workflowId: string): Promise<void> {
  const handle = h.client.workflow.getHandle(workflowId);
  const before = await handle.describe();
  expect(before.status.name).toBe('RUNNING');
  await handle.terminate('an operator ends it');
  const after = await eventually(
    `${workflowId} running again`,
    () => h.client.workflow.getHandle(workflowId).describe(),
    (d) => d.status.name === 'RUNNING' && d.runId !== before.runId,
  );
  expect(after.type).toBe(before.type);
}

describe('the workers keep each account singleton running', () => {
  it('start a terminated tracking sweeper again', async () => {
    await restartedAfterTermination(trackingSweeperId(queuePrefix(h.queues)));
  });

  it('start a terminated checkout coordinator again', async () => {
    await restartedAfterTermination(checkoutWorkflowId(queuePrefix(h.queues)));
  });
});
