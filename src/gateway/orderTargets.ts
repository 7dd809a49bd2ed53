/**
 * Finding and telling the order workflows a webhook is about: by workflow id (the orderNumber),
 * or through visibility (svc order id, stage) — which trails the workflows by a moment, so a miss
 * there is never final (the caller holds the event in the inbox). Lookups stay within the
 * orders queue and the supplier account (SupplierAccount) of the webhook, and so does every
 * signal: a workflow id names no account for sure (the default account's `order:shop-a:88` is
 * shop-a's order 88), so a run is told only once its own SupplierAccount is the webhook's.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { ORDER_WORKFLOW, supplierEventSignal, type SupplierNews } from '../order/contract.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import { accountVisibilityFilter } from '../accounts/accountStart.js';
import {
  FulfillmentStage,
  OrderNumber,
  ParcelCodes,
  SupplierAccount,
  SvcOrderId,
} from '../temporal/searchAttributes.js';
import { literal } from '../temporal/visibility.js';
import { trackedOrder, type TrackedOrder } from '../tracking/contract.js';
import type { PushedOrders } from './pushedOrders.js';

/**
 * What a signal to one workflow id found. `foreign`: the id is held by a workflow that is not an
 * order of the webhook's account; nothing was sent to it.
 */
export type SignalResult = 'signalled' | 'closed' | 'missing' | 'foreign';

/** A running order of the webhook's account: the run that may be told, as it was described. */
interface Verified {
  runId: string;
  /** What the sweeper asks the supplier by; its stage as described (it may have moved since). */
  tracked: TrackedOrder;
}

/** Runs verified lately, per process (a run never changes account: only its end is news). */
const VERIFIED_LIMIT = 10_000;

/** Running workflows signalled at once. */
const CONCURRENCY = 20;
/** Orders one fan-out (a top-up) tells at most; more wait for the next message or their own check. */
const FAN_OUT_LIMIT = 1_000;

export interface Delivery {
  signalled: string[];
  closed: string[];
}

export class OrderTargets {
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly client: Client,
    private readonly queues: TaskQueues,
    private readonly account: string = DEFAULT_ACCOUNT,
  ) {}

  /**
   * `supplierEvent` to one workflow id, only to a running order of this account: its run is
   * described (type, queue, SupplierAccount) before the first signal and told by its run id, so
   * a later run of the same id is described again. A run that finished answers "not found".
   */
  async signal(workflowId: string, news: SupplierNews): Promise<SignalResult> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const run = await this.running(workflowId);
      if (typeof run === 'string') return run;
      try {
        await this.client.workflow
          .getHandle(workflowId, run.runId)
          .signal(supplierEventSignal, news);
        return 'signalled';
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // That run has finished; the id may have a newer one.
        this.verified.delete(workflowId);
      }
    }
    return 'closed';
  }

  /**
   * Shipping news for one workflow id: handed to the account's sweeper (`pushed`), which asks the
   * supplier and tells the order what it shows; the order itself is told only when there is no
   * sweeper, or when it is split (its parcels are asked about one by one by the sweeps).
   */
  async push(workflowId: string, news: SupplierNews, pushed: PushedOrders): Promise<SignalResult> {
    const run = await this.running(workflowId);
    if (typeof run === 'string') return run;
    if ((run.tracked.parcelCodes ?? []).length === 0) {
      const events =
        news.trackingEvents === undefined
          ? undefined
          : { messageId: news.messageId, trackingEvents: news.trackingEvents };
      if (await pushed.tell({ ...run.tracked, ...(events !== undefined && { events }) })) {
        return 'signalled';
      }
    }
    return this.signal(workflowId, news);
  }

  /** The id's running order of this account, as remembered, else described now. */
  private async running(
    workflowId: string,
  ): Promise<Verified | Exclude<SignalResult, 'signalled'>> {
    return this.verified.get(workflowId) ?? this.verify(workflowId);
  }

  /** Describes the id's current run and remembers it when it is a running order of this account. */
  private async verify(workflowId: string): Promise<Verified | Exclude<SignalResult, 'signalled'>> {
    let described;
    try {
      described = await this.client.workflow.getHandle(workflowId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'missing';
      throw err;
    }
    const account = described.typedSearchAttributes.get(SupplierAccount) ?? DEFAULT_ACCOUNT;
    if (
      account !== this.account ||
      described.type !== ORDER_WORKFLOW ||
      described.taskQueue !== this.queues.orders
    ) {
      return 'foreign';
    }
    if (described.status.name !== 'RUNNING') return 'closed';
    const named = described.typedSearchAttributes;
    const tracked = trackedOrder(workflowId, {
      stage: named.get(FulfillmentStage),
      svcOrderId: named.get(SvcOrderId),
      orderNumber: named.get(OrderNumber),
      parcelCodes: named.get(ParcelCodes),
    });
    const run = { runId: described.runId, tracked };
    this.verified.set(workflowId, run);
    if (this.verified.size > VERIFIED_LIMIT) {
      this.verified.delete(this.verified.keys().next().value!);
    }
    return run;
  }

  /** `supplierEvent` to each workflow id; shipping news through the sweeper (`pushed`). */
  async signalAll(
    workflowIds: readonly string[],
    news: SupplierNews,
    pushed?: PushedOrders,
  ): Promise<Delivery> {
    const out: Delivery = { signalled: [], closed: [] };
    for (let i = 0; i < workflowIds.length; i += CONCURRENCY) {
      await Promise.all(
        workflowIds.slice(i, i + CONCURRENCY).map(async (id) => {
          const result =
            pushed === undefined ? await this.signal(id, news) : await this.push(id, news, pushed);
          if (result === 'signalled') out.signalled.push(id);
          else if (result !== 'foreign') out.closed.push(id);
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
