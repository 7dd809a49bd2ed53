/**
 * The account's checkout coordinator from outside a workflow: an order that finds it not running
 * starts it with its own "ready" (signal-with-start); workers start it with their settings; the
 * gateway tells it of a top-up (signal-with-start too). On the orders queue: no supplier call here.
 */
import { QueryNotRegisteredError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import { ORDER_WORKFLOW } from '../order/contract.js';
import {
  CHECKOUT_WORKFLOW,
  checkoutMemberQuery,
  checkoutReadySignal,
  checkoutStartOptions,
  checkoutSettingsSignal,
  checkoutWorkflowId,
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutMembership,
  type CheckoutSettings,
  type ReadyOrder,
} from './contract.js';

/** Where the coordinator holds an order, or `gone`: no coordinator runs for the account. */
export type CheckoutWhere = CheckoutMembership | { state: 'gone' };

/**
 * Whether the order workflow of a supplier order runs: `RUNNING`, how its last run ended
 * (`TERMINATED`, `FAILED`, …), or `NOT_FOUND` (no order of the account's queue has that svc order id).
 */
export type OrderRunState = 'RUNNING' | 'NOT_FOUND' | (string & {});

/** The least an order waits on its coordinator before asking where it holds it. */
const MIN_ORDER_BOUND_MS = 5 * 60_000;

/**
 * How long an order waits on its coordinator before asking where it holds it: `override`
 * (CHECKOUT_ORDER_BOUND_MS), else twice the longest a batch waits to close, at least 5 minutes.
 */
export function checkoutOrderBoundMs(settings: CheckoutSettings, override?: number): number {
  return override ?? Math.max(2 * settings.maxWaitMs, MIN_ORDER_BOUND_MS);
}

function startOptions(queues: TaskQueues, settings: CheckoutSettings) {
  return checkoutStartOptions(queuePrefix(queues), queues.orders, settings);
}

/** Starts the coordinator if needed and gives it these settings. */
export async function configureCheckout(
  client: Client,
  queues: TaskQueues,
  settings: CheckoutSettings,
): Promise<void> {
  await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
    ...startOptions(queues, settings),
    signal: checkoutSettingsSignal,
    signalArgs: [settings],
  });
}

export function checkoutActivities(
  client: Client,
  queues: TaskQueues,
  settings: CheckoutSettings = DEFAULT_CHECKOUT_SETTINGS,
  orderBoundMs?: number,
) {
  return {
    /** How long an order waits on its coordinator before asking where it holds it. */
    checkoutWaitBound(): Promise<number> {
      return Promise.resolve(checkoutOrderBoundMs(settings, orderBoundMs));
    },

    /** Where the coordinator holds this order; `gone` when none runs (terminated, never started). */
    async checkoutMember(workflowId: string): Promise<CheckoutWhere> {
      const handle = client.workflow.getHandle(checkoutWorkflowId(queuePrefix(queues)));
      try {
        const { status } = await handle.describe();
        if (status.name !== 'RUNNING') return { state: 'gone' };
        return await handle.query(checkoutMemberQuery, workflowId);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { state: 'gone' };
        // A coordinator from before the query: it may hold the order; the order waits again.
        if (err instanceof QueryNotRegisteredError || /register a handler/.test(String(err))) {
          return { state: 'queued' };
        }
        throw err;
      }
    },

    /**
     * Whether the order workflow that holds `svcOrderId` still runs (a shipment's payer, say):
     * found by its SvcOrderId among the account's orders, each run described (not visibility's
     * possibly trailing status).
     */
    async orderRunOf(svcOrderId: string): Promise<OrderRunState> {
      const query =
        `WorkflowType = '${ORDER_WORKFLOW}' AND TaskQueue = '${quoted(queues.orders)}' ` +
        `AND SvcOrderId = '${quoted(svcOrderId)}'`;
      const ids = new Set<string>();
      for await (const run of client.workflow.list({ query })) ids.add(run.workflowId);
      let ended: string | undefined;
      for (const id of ids) {
        try {
          const { status } = await client.workflow.getHandle(id).describe();
          if (status.name === 'RUNNING') return 'RUNNING';
          ended ??= status.name;
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }
      return ended ?? 'NOT_FOUND';
    },

    /** For an order whose signal found no coordinator: starts it with the order in it. */
    async joinCheckout(ready: ReadyOrder): Promise<void> {
      await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
        ...startOptions(queues, settings),
        signal: checkoutReadySignal,
        signalArgs: [ready],
      });
    },
  };
}

export type CheckoutActivities = ReturnType<typeof checkoutActivities>;

/** A value inside a visibility query's single quotes. */
function quoted(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
