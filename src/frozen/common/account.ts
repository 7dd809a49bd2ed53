/**
 * The account a frozen run works for and its queues, copied from durable/account.ts and
 * temporal/taskQueues.ts as they were on 2026-11-28. Call inside a workflow only.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { TaskQueues } from '../../temporal/taskQueues.js';
import { DEFAULT_ACCOUNT, SUPPLIER_TIER_MEMO, SupplierAccount } from './contracts.js';

export function workflowAccount(): string {
  return workflowInfo().typedSearchAttributes.get(SupplierAccount) ?? DEFAULT_ACCOUNT;
}

/** The account's tier as its starter saw it (memo `supplierTier`); undefined on older runs. */
function accountTier(): number | undefined {
  const tier = workflowInfo().memo?.[SUPPLIER_TIER_MEMO];
  return typeof tier === 'number' && tier > 0 ? tier : undefined;
}

/** The account as fairness key of every activity; on the supplier queue also its tier as weight. */
export function accountPriority(options: { weighted?: boolean } = {}): {
  fairnessKey: string;
  fairnessWeight?: number;
} {
  const tier = options.weighted === true ? accountTier() : undefined;
  return { fairnessKey: workflowAccount(), ...(tier !== undefined && { fairnessWeight: tier }) };
}

const ORDERS = 'dropflow-orders';
const SUPPLIER = 'supplier-api';
const RETIRED_BATCH = 'supplier-api-batch';

/** The prefix of a queue set (`''` for the default set): names the account in per-account ids. */
export function queuePrefix(queues: TaskQueues): string {
  const suffix = `/${ORDERS}`;
  return queues.orders.endsWith(suffix) ? queues.orders.slice(0, -suffix.length) : '';
}

/** The queues of the set an orders queue belongs to. */
export function queuesOf(ordersQueue: string): TaskQueues {
  const suffix = `/${ORDERS}`;
  const prefix = ordersQueue.endsWith(suffix) ? ordersQueue.slice(0, -suffix.length) : '';
  const p = prefix === '' ? '' : `${prefix}/`;
  return { orders: p + ORDERS, supplier: p + SUPPLIER, retiredBatch: p + RETIRED_BATCH };
}
