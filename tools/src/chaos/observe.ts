/** Gathering what the workflows and the sandbox say at the end of a run (measure.ts judges it). */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { disputeStatus, orderWorkflowId, type OrderClient } from 'dropflow/client';
import type { Sandbox } from '../sandbox/sandbox.js';
import { emptyStats } from '../sandbox/state.js';
import { FulfillmentStage, SvcOrderId } from 'dropflow/temporal';
import {
  taskFailuresIn,
  type ObservedDispute,
  type ObservedExecution,
  type ObservedOrder,
  type Observation,
} from './measure.js';
import type { OperatedRun } from './operator.js';
import type { ChaosOrder } from './orders.js';

/** Attempts at a query that fails (a worker starting, the server coming back) before giving up. */
const QUERY_ATTEMPTS = 3;
const QUERY_RETRY_MS = 2_000;
/** A workflow whose tasks fail never answers a query: the server would hold it for 30 s. */
const QUERY_DEADLINE_MS = 10_000;

async function attempt<T>(client: Client, fn: () => Promise<T>): Promise<T | undefined> {
  for (let i = 1; ; i += 1) {
    try {
      return await client.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, fn);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError || i >= QUERY_ATTEMPTS) return undefined;
      await new Promise((resolve) => setTimeout(resolve, QUERY_RETRY_MS));
    }
  }
}

function describe(client: Client, workflowId: string) {
  return attempt(client, () => client.workflow.getHandle(workflowId).describe());
}

export async function observeOrder(orders: OrderClient, o: ChaosOrder): Promise<ObservedOrder> {
  const [status, described] = await Promise.all([
    attempt(orders.client, () => orders.status(o.orderNumber)),
    describe(orders.client, orderWorkflowId(o.orderNumber)),
  ]);
  const attributes = described?.typedSearchAttributes;
  return {
    orderNumber: o.orderNumber,
    flow: o.flow,
    status,
    execution: described?.status.name,
    visible: {
      stage: attributes?.get(FulfillmentStage),
      svcOrderId: attributes?.get(SvcOrderId),
    },
    ...(described !== undefined && { submittedAt: described.startTime.getTime() }),
  };
}

export async function observeDispute(
  orders: OrderClient,
  d: { workflowId: string; orderNumber: string },
): Promise<ObservedDispute> {
  const [status, described] = await Promise.all([
    attempt(orders.client, () => disputeStatus(orders, d.workflowId)),
    describe(orders.client, d.workflowId),
  ]);
  return { ...d, status, execution: described?.status.name };
}

/** Histories read at once. */
const PARALLEL_HISTORIES = 8;

/** Every execution of the namespace, singletons included, with its failed workflow tasks. */
export async function listExecutions(client: Client): Promise<ObservedExecution[]> {
  const runs: Omit<ObservedExecution, 'taskFailures'>[] = [];
  for await (const info of client.workflow.list()) {
    runs.push({
      workflowId: info.workflowId,
      runId: info.runId,
      type: info.type,
      status: info.status.name,
    });
  }
  const out: ObservedExecution[] = [];
  for (let i = 0; i < runs.length; i += PARALLEL_HISTORIES) {
    const batch = runs.slice(i, i + PARALLEL_HISTORIES).map(async (run) => {
      const history = await attempt(client, () =>
        client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(),
      );
      return { ...run, taskFailures: history && taskFailuresIn(history.events ?? []) };
    });
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

export async function observe(
  orders: OrderClient,
  chaosOrders: readonly ChaosOrder[],
  disputes: readonly { workflowId: string; orderNumber: string }[],
  sandbox: Sandbox,
  openId: string,
  operated: readonly OperatedRun[],
): Promise<Observation> {
  const observedOrders: ObservedOrder[] = [];
  // A few at a time: every query replays a history on the one worker.
  for (let i = 0; i < chaosOrders.length; i += 8) {
    const batch = chaosOrders.slice(i, i + 8).map((o) => observeOrder(orders, o));
    observedOrders.push(...(await Promise.all(batch)));
  }
  const observedDisputes = await Promise.all(disputes.map((d) => observeDispute(orders, d)));
  const state = sandbox.state;
  return {
    orders: observedOrders,
    disputes: observedDisputes,
    executions: await listExecutions(orders.client),
    operated,
    sandboxOrders: Object.values(state.orders).filter((s) => s.openId === openId),
    sandboxDisputes: Object.values(state.disputes).filter((d) => d.openId === openId),
    stats: state.statsByAccount[openId] ?? emptyStats(),
  };
}
