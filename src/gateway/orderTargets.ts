/**
 * Finding and telling the order workflows a webhook is about: by workflow id (the orderNumber),
 * or through visibility (svc order id, stage) — which trails the workflows by a moment, so a miss
 * there is never final (the caller holds the event in the inbox). Lookups stay within the
 * orders queue and the supplier account (SupplierAccount) of the webhook.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { ORDER_WORKFLOW, supplierEventSignal, type SupplierNews } from '../order/contract.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import { accountVisibilityFilter } from '../temporal/accountStart.js';
import { literal } from '../temporal/visibility.js';

/** What a signal to one workflow id found. */
export type SignalResult = 'signalled' | 'closed' | 'missing';

/** Running workflows signalled at once. */
const CONCURRENCY = 20;
/** Orders one fan-out (a top-up) tells at most; more wait for the next message or their own check. */
const FAN_OUT_LIMIT = 1_000;

export interface Delivery {
  signalled: string[];
  closed: string[];
}

export class OrderTargets {
  constructor(
    private readonly client: Client,
    private readonly queues: TaskQueues,
    private readonly account: string = DEFAULT_ACCOUNT,
  ) {}

  /**
   * `supplierEvent` to one workflow id. A workflow that finished answers "not found" to signals;
   * `describe` tells that apart from one that never existed.
   */
  async signal(workflowId: string, news: SupplierNews): Promise<SignalResult> {
    const handle = this.client.workflow.getHandle(workflowId);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await handle.signal(supplierEventSignal, news);
        return 'signalled';
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
      try {
        const described = await handle.describe();
        // Started between the two calls: signal it again (once).
        if (described.status.name !== 'RUNNING') return 'closed';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return 'missing';
        throw err;
      }
    }
    return 'missing';
  }

  /** `supplierEvent` to each workflow id. */
  async signalAll(workflowIds: readonly string[], news: SupplierNews): Promise<Delivery> {
    const out: Delivery = { signalled: [], closed: [] };
    for (let i = 0; i < workflowIds.length; i += CONCURRENCY) {
      await Promise.all(
        workflowIds.slice(i, i + CONCURRENCY).map(async (id) => {
          const result = await this.signal(id, news);
          if (result === 'signalled') out.signalled.push(id);
          else out.closed.push(id);
        }),
      );
    }
    return out;
  }

  /**
   * Order workflows of this account holding the svc order id, as their own or as one of their
   * parcels' (a split order): running and finished ones.
   */
  bySvcOrderId(svcOrderId: string): Promise<{ running: string[]; closed: string[] }> {
    const id = literal(svcOrderId);
    return this.find(`(SvcOrderId = ${id} OR ParcelCodes = ${id})`, 10);
  }

  /** Running orders of this account at `stage` (optionally of one orderNumber). */
  async inStage(stage: string, orderNumber?: string): Promise<string[]> {
    const clauses = [`FulfillmentStage = ${literal(stage)}`];
    if (orderNumber !== undefined) clauses.push(`OrderNumber = ${literal(orderNumber)}`);
    return (
      await this.find(`${clauses.join(' AND ')} AND ExecutionStatus = 'Running'`, FAN_OUT_LIMIT)
    ).running;
  }

  private async find(
    filter: string,
    limit: number,
  ): Promise<{ running: string[]; closed: string[] }> {
    const query = [
      `WorkflowType = ${literal(ORDER_WORKFLOW)}`,
      `TaskQueue = ${literal(this.queues.orders)}`,
      accountVisibilityFilter(this.account),
      filter,
    ].join(' AND ');
    const running = new Set<string>();
    const closed = new Set<string>();
    let seen = 0;
    for await (const info of this.client.workflow.list({
      query,
      pageSize: Math.min(limit, 1000),
    })) {
      if (info.status.name === 'RUNNING') running.add(info.workflowId);
      else closed.add(info.workflowId);
      seen += 1;
      if (seen >= limit) break;
    }
    // A workflow id reused by a later run counts as running.
    for (const id of running) closed.delete(id);
    return { running: [...running], closed: [...closed] };
  }
}
