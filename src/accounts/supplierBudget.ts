/**
 * The supplier queue's budget, kept by the Temporal server (docs/accounts.md, "The budget per
 * account, across processes"): every supplier task carries its account as fairness key and its
 * tier as fairness weight (src/durable/account.ts); the queue's per-key rate limit is 1 request/s
 * per unit of weight, so each account gets its tier; the whole queue is limited to the sum of the
 * tiers. The server's matching service hands the tasks out, so the limits hold across every worker
 * process of the fleet. Every worker applies the same config from its directory (idempotent): at
 * start, and again whenever the directory changes (the worker's one subscription, src/worker.ts).
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

import type { Logger } from '../telemetry/log.js';
import { DEFAULT_ACCOUNT, type AccountSettings } from './contract.js';

/** Requests per second of a fairness key per unit of weight: a task's weight is its tier. */
export const KEY_RATE_PER_WEIGHT = 1;

export interface SupplierBudget {
  /** The whole queue: the sum of the accounts' tiers. */
  queuePerSecond: number;
  /**
   * Each account's key, per unit of weight. None while the default account is the only one: the
   * queue limit is then its rate, as before accounts were data, whatever its runs' weights.
   */
  keyPerSecondPerWeight?: number;
}

export function supplierBudget(
  defaultTier: number,
  accounts: readonly AccountSettings[],
): SupplierBudget {
  const others = accounts.filter((a) => a.id !== DEFAULT_ACCOUNT);
  const queuePerSecond = others.reduce((sum, a) => sum + a.tier, defaultTier);
  if (others.length === 0) return { queuePerSecond };
  return { queuePerSecond, keyPerSecondPerWeight: KEY_RATE_PER_WEIGHT };
}

export interface BudgetTarget {
  client: Client;
  namespace: string;
  /** The supplier queue of the fleet's queue set. */
  taskQueue: string;
}

// A CommonJS module: its namespace is its default export under Node's ESM loader.
const ACTIVITY = proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;
const REASON = 'dropflow: the sum of the accounts tiers; per account 1/s per tier unit';

/** The queue's budget as the server holds it now. */
export async function serverBudget(t: BudgetTarget): Promise<SupplierBudget> {
  const { config } = await t.client.workflowService.describeTaskQueue({
    namespace: t.namespace,
    taskQueue: { name: t.taskQueue },
    taskQueueType: ACTIVITY,
    reportConfig: true,
  });
  const queue = config?.queueRateLimit?.rateLimit?.requestsPerSecond;
  const key = config?.fairnessKeysRateLimitDefault?.rateLimit?.requestsPerSecond;
  return {
    queuePerSecond: queue ?? Number.POSITIVE_INFINITY,
    ...(key != null && { keyPerSecondPerWeight: key }),
  };
}

/** Sets the queue's budget, unless the server holds it already (so every worker may call it). */
export async function applySupplierBudget(
  t: BudgetTarget,
  budget: SupplierBudget,
): Promise<boolean> {
  const now = await serverBudget(t);
  if (
    now.queuePerSecond === budget.queuePerSecond &&
    now.keyPerSecondPerWeight === budget.keyPerSecondPerWeight
  ) {
    return false;
  }
  const limit = (requestsPerSecond: number) => ({
    rateLimit: { requestsPerSecond },
    reason: REASON,
  });
  await t.client.workflowService.updateTaskQueueConfig({
    namespace: t.namespace,
    taskQueue: t.taskQueue,
    taskQueueType: ACTIVITY,
    identity: 'dropflow worker',
    updateQueueRateLimit: limit(budget.queuePerSecond),
    // Without a rate limit in it, the update removes the per-key limit.
    updateFairnessKeyRateLimitDefault:
      budget.keyPerSecondPerWeight === undefined ? {} : limit(budget.keyPerSecondPerWeight),
  });
  return true;
}

/** A server without task queue config (before 1.28): the workers' own limits are all there is. */
export function unsupported(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === GRPC_UNIMPLEMENTED;
}

const GRPC_UNIMPLEMENTED = 12;
const RETRY_MS = 30_000;

export interface FollowedBudget {
  /** The first budget on the server (its failure is the caller's to judge). */
  applied: Promise<void>;
  /** The directory's accounts now: their budget is applied after the ones before it. */
  follow(accounts: readonly AccountSettings[]): void;
  stop(): void;
}

/**
 * Applies the budget of `accounts` now and of each list it is given to `follow`, one at a time and
 * always the latest (a failed one is tried again until it lands or a newer one replaces it).
 */
export function followSupplierBudget(
  t: BudgetTarget,
  defaultTier: number,
  accounts: readonly AccountSettings[],
  log: Logger,
): FollowedBudget {
  let wanted = supplierBudget(defaultTier, accounts);
  const first = wanted;
  // The first one's failure is the caller's to judge.
  const applied = applySupplierBudget(t, first).then((changed) => {
    if (changed)
      log.info({ taskQueue: t.taskQueue, ...first }, 'supplier budget set on the server');
  });
  let chain: Promise<void> = applied.catch(() => undefined);
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const live = (budget: SupplierBudget) => !stopped && budget === wanted;

  const attempt = async (budget: SupplierBudget): Promise<void> => {
    if (!live(budget)) return;
    try {
      if (await applySupplierBudget(t, budget)) {
        log.info({ taskQueue: t.taskQueue, ...budget }, 'supplier budget set on the server');
      }
    } catch (err) {
      if (!live(budget)) return;
      log.warn({ err, taskQueue: t.taskQueue }, 'supplier budget not set yet; trying again');
      clearTimeout(retry);
      retry = setTimeout(() => {
        chain = chain.then(() => attempt(budget));
      }, RETRY_MS);
      retry.unref();
    }
  };

  return {
    applied,
    follow(now) {
      if (stopped) return;
      wanted = supplierBudget(defaultTier, now);
      const budget = wanted;
      chain = chain.then(() => attempt(budget));
    },
    stop() {
      stopped = true;
      clearTimeout(retry);
    },
  };
}
