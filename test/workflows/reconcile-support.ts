/**
 * Shared by the reconcile-*.test.ts files: a call that may act loses its answer, the look-up that
 * should settle it keeps failing, the order stops for a person; the supplier recovers, resume.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { expect } from 'vitest';
import {
  cancelUpdate,
  resumeUpdate,
  Stage,
  statusQuery,
  type OrderStatus,
} from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { startOrder, validOrder, visibleIn, type OrderHarness } from '../support/orders.js';
import { accountStats, clearFaults, injectFault } from '../support/sandbox.js';
import { control } from '../sandbox/controls.js';
import { usOrder } from '../supplier/orderHelpers.js';

export const ORDER_DETAIL_BATCH = 'shopping/order/getOrderDetailBatch';

/**
 * More failed answers than the step's look-ups and Temporal's attempts of them can use up: the
 * look-up keeps failing until the test clears the account's faults.
 */
export async function lookUpsKeepFailing(openId: string): Promise<void> {
  await injectFault({ path: ORDER_DETAIL_BATCH, kind: 'http5xx', times: 100, openId });
}

/** Waits (longer than reachStage: the look-ups pause 2, 4 and 8 s) for any stage. */
export function atStage(
  handle: WorkflowHandle,
  stage: Stage,
  also: (s: OrderStatus) => boolean = () => true,
  timeoutMs = 100_000,
): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId} at ${stage}`,
    () => handle.query(statusQuery),
    (s) => {
      if (s.stage === stage) return also(s);
      if (s.stage === Stage.CANCELLED || s.stage === Stage.COMPLETED) {
        throw new Error(`order finished ${s.stage} waiting for ${stage}`);
      }
      return false;
    },
    timeoutMs,
  );
}

/**
 * The order stopped at NEEDS_ATTENTION because the outcome of `step` is unknown and could not be
 * looked up: the reason names the step, operators find it, and the workflow did not fail.
 */
export async function stoppedForLookUp(
  h: OrderHarness,
  handle: WorkflowHandle,
  orderNumber: string,
  step: string,
): Promise<OrderStatus> {
  const stopped = await atStage(handle, Stage.NEEDS_ATTENTION);
  expect(stopped.error?.step).toBe(`${step} look-up`);
  expect(stopped.error?.message).toMatch(
    new RegExp(`^the outcome of ${step} is unknown and looking it up failed: `),
  );
  expect(stopped.outcomeUnknown?.step).toBe(step);
  expect(stopped.waitingFor).toMatch(new RegExp(`resume to look ${step} up again`));
  await visibleIn(h, orderNumber, Stage.NEEDS_ATTENTION, 'NeedsAttention = true');
  expect((await handle.describe()).status.name).toBe('RUNNING');
  return stopped;
}

/** The supplier answers again; an operator resumes; the order goes on with the look-up. */
export async function recoverAndResume(h: OrderHarness, handle: WorkflowHandle): Promise<void> {
  await clearFaults(h.account.openId);
  const resumed = await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
  expect(resumed.accepted).toBe(true);
  // The stop ended with the resume: the order is at work again, nothing of the stop lingers.
  const now = await handle.query(statusQuery);
  expect(now.stage).not.toBe(Stage.NEEDS_ATTENTION);
  expect(now.error).toBeUndefined();
}

/** A cancel the validator refuses, with its reason; fails the test if it was accepted. */
export async function refusedCancel(handle: WorkflowHandle): Promise<string> {
  return handle.executeUpdate(cancelUpdate, { args: [{ reason: 'customer withdrew' }] }).then(
    (r) => {
      throw new Error(`cancel was not refused: ${JSON.stringify(r)}`);
    },
    (e: unknown) => (e as { cause?: { message?: string } }).cause?.message ?? String(e),
  );
}

/** The stages the order went through. */
export function stagesOf(s: OrderStatus): Stage[] {
  return s.timeline.map((t) => t.stage);
}

/** Whether a timeline note matches. */
export function noted(s: OrderStatus, pattern: RegExp): boolean {
  return s.timeline.some((t) => pattern.test(t.note ?? ''));
}

/**
 * A create whose answer is lost while the supplier splits the order as it files it (its number is
 * then several other orders): the order, resumed once the look-ups answer, stops at
 * NEEDS_ATTENTION naming the parts. The parts' codes, the stop, and the account's stats before.
 */
export async function splitBeforeCreate(
  h: OrderHarness,
  lines: { vid: string; quantity: number; storeLineItemId?: string }[],
) {
  const { openId } = h.account;
  const before = await accountStats(openId);
  await injectFault({ path: 'shopping/order/createOrderV3', kind: 'commitThenDrop', openId });
  await lookUpsKeepFailing(openId);
  const input = validOrder({
    ...usOrder({ products: lines }),
    fulfillment: { flow: 'B', supplierLagSeconds: 3 },
  });
  const { orderNumber } = input.order;
  const handle = await startOrder(h, input);
  await stoppedForLookUp(h, handle, orderNumber, 'createOrderV3');
  const listed = await h.account.client.api.listOrders({ status: 'CREATED', pageSize: 100 });
  const filed = listed.list.find((o) => o.orderNum === orderNumber)?.orderId;
  expect(filed).toBeDefined();
  const answer = await control<{ splitInto: string[] }>('POST', `orders/${filed}/split`, {
    now: true,
  });
  expect(answer.status).toBe(200);
  await clearFaults(openId);
  await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
  const stopped = await atStage(
    handle,
    Stage.NEEDS_ATTENTION,
    (st) => st.error?.step === 'createOrderV3',
  );
  return { handle, codes: answer.body.splitInto, stopped, before };
}
