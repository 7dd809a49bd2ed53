/**
 * The account's checkout coordinator from outside a workflow: an order that finds it not running
 * starts it with its own "ready" (signal-with-start); workers start it with their settings; the
 * gateway tells it of a top-up (signal-with-start too). On the orders queue: no supplier call here.
 */
import { QueryNotRegisteredError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import {
  CHECKOUT_WORKFLOW,
  checkoutFundsSignal,
  checkoutMemberQuery,
  checkoutReadySignal,
  checkoutSettingsSignal,
  checkoutWorkflowId,
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutMembership,
  type CheckoutSettings,
  type ReadyOrder,
} from '../workflows/checkout/messages.js';

/** Where the coordinator holds an order, or `gone`: no coordinator runs for the account. */
export type CheckoutWhere = CheckoutMembership | { state: 'gone' };

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
  return {
    workflowId: checkoutWorkflowId(queuePrefix(queues)),
    taskQueue: queues.orders,
    args: [{ settings }],
  };
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

/**
 * A top-up was paid: the coordinator reads the balance now and tells the orders it covers. One
 * signal, with start: a coordinator an operator terminated comes back with the deployment's
 * `settings` (its budgets too), and its waiting orders re-join it.
 */
export async function tellCheckoutToppedUp(
  client: Client,
  queues: TaskQueues,
  settings: CheckoutSettings,
): Promise<void> {
  await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
    ...startOptions(queues, settings),
    signal: checkoutFundsSignal,
    signalArgs: [{ kind: 'toppedUp' }],
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
