/**
 * The worker's checkout batching as the bench sets it: the switch of each phase, and the tuning
 * variables only when given as flags (otherwise the worker's own defaults apply).
 */
import { Env } from 'dropflow/config';

export const Batching = { off: 'off', on: 'on' } as const;
export type Batching = (typeof Batching)[keyof typeof Batching];

export interface CheckoutTuning {
  maxBatch?: number;
  quietMs?: number;
  maxWaitMs?: number;
}

/** The worker's environment for a phase. */
export function checkoutEnv(batching: Batching, tuning: CheckoutTuning): Record<string, string> {
  return {
    CHECKOUT_BATCHING: batching,
    ...(tuning.maxBatch !== undefined && { CHECKOUT_MAX_BATCH: String(tuning.maxBatch) }),
    ...(tuning.quietMs !== undefined && { CHECKOUT_QUIET_MS: String(tuning.quietMs) }),
    ...(tuning.maxWaitMs !== undefined && { CHECKOUT_MAX_WAIT_MS: String(tuning.maxWaitMs) }),
  };
}

/** The largest batch the worker will make: the flag's, else the worker's default. */
export function maxBatchSize(tuning: CheckoutTuning): number {
  return tuning.maxBatch ?? Env.parse({}).CHECKOUT_MAX_BATCH;
}
