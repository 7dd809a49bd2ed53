import type { Client } from '@temporalio/client';
import { configureCheckout } from '../../src/checkout/startActivities.js';
import type { TaskQueues } from '../../src/temporal/taskQueues.js';
import {
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../../src/terms/checkoutSettings.js';

/** Long enough that only the batch size closes a batch. */
export const NEVER = 600_000;

/** Sets the coordinator's settings over defaults in which only the batch size closes a batch. */
export function batchSizeOnly(h: { client: Client; queues: TaskQueues }) {
  return (s: Partial<CheckoutSettings>): Promise<void> =>
    configureCheckout(h.client, h.queues, {
      ...DEFAULT_CHECKOUT_SETTINGS,
      quietMs: NEVER,
      maxWaitMs: NEVER,
      ...s,
    });
}
