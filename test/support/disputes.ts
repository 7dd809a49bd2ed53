/** Disputes in tests: an order that may be disputed, and waiting for a dispute's stage. */
import { Stage } from '../../src/order/contract.js';
import { disputeStatusQuery, type DisputeStatus } from '../../src/dispute/contract.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { eventually } from './eventually.js';
import { reachStage, startOrder, validOrder, type OrderHarness } from './orders.js';

/** Waits until the dispute is at `stage`; fails at once if it stops at NEEDS_ATTENTION instead. */
export function disputeReaches(
  harness: OrderHarness,
  workflowId: string,
  stage: DisputeStatus['stage'],
): Promise<DisputeStatus> {
  const handle = harness.client.workflow.getHandle(workflowId);
  return eventually(
    `dispute ${workflowId} at ${stage}`,
    () => handle.query(disputeStatusQuery),
    (s) => {
      if (s.stage === 'NEEDS_ATTENTION' && stage !== 'NEEDS_ATTENTION')
        throw new Error(`dispute needs attention: ${JSON.stringify(s.error)}`);
      return s.stage === stage;
    },
    60_000,
  );
}

/** An order of the harness's account at AWAITING_SHIPMENT (paid: it may be disputed). */
export async function shippableOrder(harness: OrderHarness) {
  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
  const order = await startOrder(harness, input);
  await reachStage(order, Stage.AWAITING_SHIPMENT);
  return { input, order };
}
