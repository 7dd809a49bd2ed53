/**
 * Task queues. Every supplier request of an account runs on one queue, `supplier-api`, whose
 * `maxTaskQueueActivitiesPerSecond` is the account's rate: the Temporal server hands out that many
 * activity tasks per second across every worker process, so the account's one budget is counted
 * once, whatever the number of processes. Backlogged tasks leave in priority order
 * (durable/supplierPriority.ts). Token calls are not activities of this queue.
 *
 * One set of queues serves one supplier account. A deployment with several accounts (and every
 * test file, which has its own sandbox account) gives each set a prefix: `<prefix>/supplier-api`.
 * Workflow code finds its supplier queue from its own queue name, so nothing else carries it.
 * Sandbox-safe: no imports.
 */
export interface TaskQueues {
  /** Workflows, and activities that do not call the supplier. */
  orders: string;
  /** Every supplier request of the account: its one budget. */
  supplier: string;
  /**
   * The batch queries' own queue before they joined `supplier`. Nothing schedules on it any more;
   * the workers drain what was scheduled there before the change (see worker.ts).
   */
  retiredBatch: string;
}

const ORDERS = 'dropflow-orders';
const SUPPLIER = 'supplier-api';
const RETIRED_BATCH = 'supplier-api-batch';

export function taskQueues(prefix = ''): TaskQueues {
  const p = prefix === '' ? '' : `${prefix}/`;
  return { orders: p + ORDERS, supplier: p + SUPPLIER, retiredBatch: p + RETIRED_BATCH };
}

/** The prefix of a queue set (`''` for the default set): names the account in per-account ids. */
export function queuePrefix(queues: TaskQueues): string {
  const suffix = `/${ORDERS}`;
  return queues.orders.endsWith(suffix) ? queues.orders.slice(0, -suffix.length) : '';
}

/** The queues of the set an orders queue belongs to. */
export function queuesOf(ordersQueue: string): TaskQueues {
  const suffix = `/${ORDERS}`;
  return taskQueues(ordersQueue.endsWith(suffix) ? ordersQueue.slice(0, -suffix.length) : '');
}
