/**
 * An order provoked into NEEDS_ATTENTION and recovered as an operator recovers it: submitted as
 * `dropflow submit` does, its stop awaited (and shown to the case), the recovery taken, and the
 * order followed to the stage it should reach; what the supplier did meanwhile is counted.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { expect } from 'vitest';

import { OrderClient } from '../../src/client/orderClient.js';
import { Stage, statusQuery, type OrderStatus } from '../../src/order/contract.js';
import type { SandboxStats } from '../../tools/src/sandbox/state.js';
import { eventually } from './eventually.js';
import { nameScenario } from './histories.js';
import type { OrderHarness } from './orders.js';
import { accountStats } from './sandbox.js';

/** Submits as `dropflow submit` does: the order's number and its workflow. */
export async function submitOrder(harness: OrderHarness, raw: Record<string, unknown>) {
  const client = new OrderClient(harness.client, harness.queues);
  nameScenario(`order:${String(raw.orderNumber)}`);
  const result = await client.submit(raw);
  expect(result.outcome).toBe('started');
  return {
    number: String(raw.orderNumber),
    handle: harness.client.workflow.getHandle(result.workflowId),
  };
}

/** The order stopped at NEEDS_ATTENTION (and says what moves it on): its status. */
export function stopped(handle: WorkflowHandle, timeoutMs = 120_000): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId} at NEEDS_ATTENTION`,
    () => handle.query(statusQuery),
    (s) => {
      if (s.stage === Stage.CANCELLED || s.stage === Stage.COMPLETED) {
        throw new Error(`order ended ${s.stage} before it stopped`);
      }
      return s.stage === Stage.NEEDS_ATTENTION && s.waitingFor !== undefined;
    },
    timeoutMs,
  );
}

/** The order left NEEDS_ATTENTION and reached `stage`. */
export function reaches(
  handle: WorkflowHandle,
  stage: Stage,
  timeoutMs = 120_000,
): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId} at ${stage}`,
    () => handle.query(statusQuery),
    (s) => {
      if (s.stage === Stage.CANCELLED && stage !== Stage.CANCELLED) {
        throw new Error(`order ended CANCELLED waiting for ${stage}`);
      }
      return s.stage === stage;
    },
    timeoutMs,
  );
}

/** Stages after the last NEEDS_ATTENTION: the order went on, and did not stop again. */
export function after(s: OrderStatus): Stage[] {
  const stages = s.timeline.map((t) => t.stage);
  return stages.slice(stages.lastIndexOf(Stage.NEEDS_ATTENTION) + 1);
}

export interface Recovery {
  harness: OrderHarness;
  /** The order as submitted (createOrderV3 body plus `fulfillment`). */
  raw: Record<string, unknown>;
  /** What the stop must show: its error and what moves it on. */
  stop: (s: OrderStatus) => void;
  /** What moves it on: an operator's action by orderNumber, or mending the cause alone. */
  recover: (orderNumber: string) => Promise<void>;
  /** Where the recovered order is followed to (default AWAITING_SHIPMENT). */
  reach?: Stage;
  /** How long the stop and the recovery each may take (default 120 s). */
  timeoutMs?: number;
}

export interface Recovered {
  orderNumber: string;
  handle: WorkflowHandle;
  /** The order where it reached `reach`. */
  done: OrderStatus;
  /** The account's sandbox counters when the order was submitted, and once it reached `reach`. */
  before: SandboxStats;
  now: SandboxStats;
}

/** Submits, awaits the stop, checks it, recovers, and follows the order to `reach`. */
export async function stopAndRecover(r: Recovery): Promise<Recovered> {
  const { openId } = r.harness.account;
  const before = await accountStats(openId);
  const { number, handle } = await submitOrder(r.harness, r.raw);
  r.stop(await stopped(handle, r.timeoutMs));
  await r.recover(number);
  const done = await reaches(handle, r.reach ?? Stage.AWAITING_SHIPMENT, r.timeoutMs);
  return { orderNumber: number, handle, done, before, now: await accountStats(openId) };
}

/** Created once and paid once while it stopped and went on; nothing refused as a duplicate. */
export function expectOnceEach({ before, now }: Pick<Recovered, 'before' | 'now'>): void {
  expect(now.ordersCreated - before.ordersCreated).toBe(1);
  expect(now.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
  expect(now.payments - before.payments).toBe(1);
}
