/**
 * The account's checkout coordinator from outside a workflow: an order that finds it not running
 * starts it with its own "ready" (signal-with-start); workers start it with their settings; the
 * gateway tells it of a top-up (signal-with-start too). On the orders queue: no supplier call here.
 */
import type { Client } from '@temporalio/client';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import {
  CHECKOUT_WORKFLOW,
  checkoutFundsSignal,
  checkoutReadySignal,
  checkoutSettingsSignal,
  checkoutWorkflowId,
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
  type ReadyOrder,
} from '../workflows/checkout/messages.js';

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
 * signal, with start: a coordinator an operator terminated comes back (with the default
 * settings, until a worker starts and gives it its own), and its waiting orders re-join it.
 */
export async function tellCheckoutToppedUp(client: Client, queues: TaskQueues): Promise<void> {
  await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
    ...startOptions(queues, DEFAULT_CHECKOUT_SETTINGS),
    signal: checkoutFundsSignal,
    signalArgs: [{ kind: 'toppedUp' }],
  });
}

export function checkoutActivities(
  client: Client,
  queues: TaskQueues,
  settings: CheckoutSettings = DEFAULT_CHECKOUT_SETTINGS,
) {
  return {
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
