/**
 * Task queues (architecture §4). Supplier activities run on their own queues whose
 * `maxTaskQueueActivitiesPerSecond` is the account's limit, enforced by the Temporal server across
 * every worker process.
 *
 * One set of queues serves one supplier account. A deployment with several accounts (and every
 * test file, which has its own sandbox account) gives each set a prefix: `<prefix>/supplier-api`.
 * Workflow code finds its supplier queues from its own queue name, so nothing else carries them.
 * Sandbox-safe: no imports.
 */
export interface TaskQueues {
  /** Workflows, and activities that do not call the supplier. */
  orders: string;
  /** Every supplier call but the batch queries: the account's general limit (about 1/s). */
  supplier: string;
  /** getOrderDetailBatch and getProofOfDelivery: 2 per second. */
  batch: string;
}

const ORDERS = 'dropflow-orders';
const SUPPLIER = 'supplier-api';
const BATCH = 'supplier-api-batch';

export function taskQueues(prefix = ''): TaskQueues {
  const p = prefix === '' ? '' : `${prefix}/`;
  return { orders: p + ORDERS, supplier: p + SUPPLIER, batch: p + BATCH };
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
