/**
 * Shipping news on its way to the account's tracking sweeper. A push that says an order shipped,
 * was delivered or got a tracking number is not acted on by its word: the sweeper asks the supplier
 * about the order and tells it what the supplier shows. The pushes of a short window go to the
 * sweeper as one `ordersPushed` signal, and each is answered only once Temporal has that signal:
 * one billed signal per window instead of one per push, and one supplier look-up per batch
 * instead of one per order.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { mergePushed, ordersPushedSignal, type PushedOrder } from '../tracking/contract.js';

/** How long the first push of a batch waits for others (the supplier waits 3 s for its answer). */
export const PUSH_WINDOW_MS = 500;
/** A batch this large goes at once. */
const BATCH_LIMIT = 200;

interface Batch {
  orders: Map<string, PushedOrder>;
  answers: { resolve: (told: boolean) => void; reject: (err: unknown) => void }[];
}

export class PushedOrders {
  private open: Batch | undefined;

  constructor(
    private readonly client: Client,
    private readonly sweeperId: string,
    private readonly windowMs = PUSH_WINDOW_MS,
  ) {}

  /**
   * Resolves true once the sweeper has the order, false when the account has no running sweeper
   * (the caller then tells the order itself); rejects when Temporal could not be reached.
   */
  tell(order: PushedOrder): Promise<boolean> {
    let batch = this.open;
    if (batch === undefined) {
      const opened: Batch = { orders: new Map(), answers: [] };
      this.open = batch = opened;
      setTimeout(() => void this.send(opened), this.windowMs);
    }
    batch.orders.set(order.workflowId, mergePushed(batch.orders.get(order.workflowId), order));
    const told = new Promise<boolean>((resolve, reject) => batch.answers.push({ resolve, reject }));
    if (batch.orders.size >= BATCH_LIMIT) void this.send(batch);
    return told;
  }

  private async send(batch: Batch): Promise<void> {
    if (this.open !== batch) return;
    this.open = undefined;
    try {
      await this.client.workflow
        .getHandle(this.sweeperId)
        .signal(ordersPushedSignal, [...batch.orders.values()]);
      for (const a of batch.answers) a.resolve(true);
    } catch (err) {
      for (const a of batch.answers) {
        if (err instanceof WorkflowNotFoundError) a.resolve(false);
        else a.reject(err);
      }
    }
  }
}
