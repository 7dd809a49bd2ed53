/**
 * The checkout coordinator's state and its only writer: the orders waiting for the next batch,
 * the batches under way, and what waits for the balance (oldest first). The workflow loop
 * (coordinator.ts) asks it what is due; batches (batch.ts) report through it.
 */
import type {
  CheckoutOutcome,
  CheckoutView,
  FundsNews,
  ReadyOrder,
} from '../../../checkout/contract.js';
import type { CheckoutSettings } from '../../../terms/checkoutSettings.js';

/** A confirmed shipment the supplier refused to pay for lack of balance. */
export interface ShortShipment {
  batchId: string;
  orders: ReadyOrder[];
  shipmentOrderId: string;
  amount: number | undefined;
  since: string;
}

/** Something that waits for the balance: released oldest first, as far as the balance goes. */
export type FundsWait =
  | { kind: 'orders'; order: ReadyOrder; since: string }
  | { kind: 'shipment'; shipment: ShortShipment; since: string }
  | { kind: 'waiter'; workflowId: string; amount: number; since: string };

export interface BatchView {
  id: string;
  orders: ReadyOrder[];
  step: string;
  waitingFor?: string;
}

export interface CheckoutCarryOver {
  settings: CheckoutSettings;
  queue: ReadyOrder[];
  funds: FundsWait[];
  balance?: { amount: number; at: string };
  lastFundsCheck?: number;
  batchesDone: number;
  ordersPaid: number;
  nextBatch: number;
}

const amountOf = (w: FundsWait): number | undefined =>
  w.kind === 'orders' ? w.order.amount : w.kind === 'shipment' ? w.shipment.amount : w.amount;

export class CheckoutState {
  settings: CheckoutSettings;
  private queue: ReadyOrder[];
  private funds: FundsWait[];
  private readonly batches = new Map<string, BatchView>();
  private balance: { amount: number; at: string } | undefined;
  private lastFundsCheck: number;
  private lastArrival = 0;
  private fundsUrgent = false;
  private batchesDone: number;
  private ordersPaid: number;
  private nextBatch: number;
  /** Grows when the loop must look again before its timer: not on every arrival (timers bill). */
  wakeVersion = 0;

  constructor(from: CheckoutCarryOver) {
    this.settings = from.settings;
    this.queue = from.queue;
    this.funds = from.funds;
    this.balance = from.balance;
    this.lastFundsCheck = from.lastFundsCheck ?? new Date().getTime();
    this.batchesDone = from.batchesDone;
    this.ordersPaid = from.ordersPaid;
    this.nextBatch = from.nextBatch;
    if (this.queue.length > 0) this.lastArrival = new Date().getTime();
  }

  configure(settings: CheckoutSettings): void {
    this.settings = settings;
    this.wake();
  }

  // ---- orders joining and leaving ---------------------------------------------------------------

  /** An order is ready for the cart; a repeat of one already known changes nothing. */
  ready(order: ReadyOrder): void {
    if (this.knows(order.workflowId)) return;
    const wasEmpty = this.queue.length === 0;
    this.queue.push(order);
    this.lastArrival = new Date().getTime();
    if (wasEmpty || this.queue.length >= this.settings.maxBatch || !this.settings.batching) {
      this.wake();
    }
  }

  /** A cancel: the order leaves if no call for it has been sent; the answer for the order. */
  withdraw(workflowId: string): CheckoutOutcome {
    const queued = this.queue.findIndex((o) => o.workflowId === workflowId);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      return { kind: 'withdrawn' };
    }
    const short = this.funds.findIndex(
      (w) =>
        (w.kind === 'orders' && w.order.workflowId === workflowId) ||
        (w.kind === 'waiter' && w.workflowId === workflowId),
    );
    if (short >= 0) {
      this.funds.splice(short, 1);
      return { kind: 'withdrawn' };
    }
    for (const b of this.batches.values()) {
      if (b.orders.some((o) => o.workflowId === workflowId)) {
        return {
          kind: 'withdrawRefused',
          why: `its checkout batch ${b.id} is at ${b.step} with ${b.orders.length} orders: the supplier carts, confirms and pays them together; wait for the outcome (an intercepted order can be cancelled then)`,
        };
      }
    }
    const shipment = this.funds.find(
      (w) => w.kind === 'shipment' && w.shipment.orders.some((o) => o.workflowId === workflowId),
    );
    if (shipment?.kind === 'shipment') {
      return {
        kind: 'withdrawRefused',
        why: `it is confirmed into shipment ${shipment.shipment.shipmentOrderId} with ${shipment.shipment.orders.length} orders, which the supplier pays only as a whole`,
      };
    }
    // Unknown here: its outcome was sent already; the order decides by itself.
    return { kind: 'withdrawn' };
  }

  private knows(workflowId: string): boolean {
    return (
      this.queue.some((o) => o.workflowId === workflowId) ||
      [...this.batches.values()].some((b) => b.orders.some((o) => o.workflowId === workflowId)) ||
      this.funds.some(
        (w) =>
          (w.kind === 'orders' && w.order.workflowId === workflowId) ||
          (w.kind === 'shipment' && w.shipment.orders.some((o) => o.workflowId === workflowId)),
      )
    );
  }

  // ---- batches ----------------------------------------------------------------------------------

  /** Whether the waiting orders should go now: full, quiet for a while, or waited long enough. */
  batchDue(now: number): boolean {
    if (this.queue.length === 0) return false;
    const s = this.settings;
    if (!s.batching || this.queue.length >= s.maxBatch) return true;
    const oldest = Date.parse(this.queue[0]!.readyAt);
    return now - this.lastArrival >= s.quietMs || now - oldest >= s.maxWaitMs;
  }

  /** Takes the next batch: up to maxBatch orders, oldest first (one when batching is off). */
  takeBatch(): BatchView {
    const size = this.settings.batching ? this.settings.maxBatch : 1;
    const batch: BatchView = {
      id: `B${++this.nextBatch}`,
      orders: this.queue.splice(0, size),
      step: 'starting',
    };
    this.batches.set(batch.id, batch);
    return batch;
  }

  get batchesInFlight(): number {
    return this.batches.size;
  }

  /** A batch moved on (for the status query). */
  batchAt(batch: BatchView, step: string, waitingFor?: string): void {
    batch.step = step;
    if (waitingFor === undefined) delete batch.waitingFor;
    else batch.waitingFor = waitingFor;
  }

  /** Orders leave a batch with their outcome (paid, intercepted, alone, short of funds). */
  released(batch: BatchView, workflowIds: readonly string[], outcome: CheckoutOutcome): void {
    batch.orders = batch.orders.filter((o) => !workflowIds.includes(o.workflowId));
    if (outcome.kind === 'paid') this.ordersPaid += workflowIds.length;
  }

  batchFinished(batch: BatchView): void {
    this.batches.delete(batch.id);
    this.batchesDone += 1;
    this.wake();
  }

  /** Starts a batch for a shipment released from the funds list (its orders, already confirmed). */
  resumeShipment(shipment: ShortShipment): BatchView {
    const batch: BatchView = { id: shipment.batchId, orders: shipment.orders, step: 'payment' };
    this.batches.set(batch.id, batch);
    return batch;
  }

  // ---- money ------------------------------------------------------------------------------------

  get fundsShort(): boolean {
    return this.funds.length > 0;
  }

  balanceRead(amount: number): void {
    this.balance = { amount, at: new Date().toISOString() };
  }

  /** Orders the balance does not cover wait for it, unconfirmed. */
  ordersShort(orders: readonly ReadyOrder[]): void {
    const since = new Date().toISOString();
    for (const order of orders) this.funds.push({ kind: 'orders', order, since });
  }

  shipmentShort(shipment: ShortShipment): void {
    this.funds.push({ kind: 'shipment', shipment, since: shipment.since });
  }

  fundsNews(news: FundsNews): void {
    if (news.kind === 'toppedUp') {
      this.fundsUrgent = true;
      this.wake();
    } else if (news.kind === 'wait') {
      if (!this.funds.some((w) => w.kind === 'waiter' && w.workflowId === news.workflowId)) {
        this.funds.push({
          kind: 'waiter',
          workflowId: news.workflowId,
          amount: news.amount,
          since: news.since,
        });
      }
    } else {
      this.funds = this.funds.filter(
        (w) => !(w.kind === 'waiter' && w.workflowId === news.workflowId),
      );
    }
  }

  fundsCheckDue(now: number): boolean {
    if (this.funds.length === 0) return false;
    return this.fundsUrgent || now - this.lastFundsCheck >= this.settings.fundsCheckMs;
  }

  /**
   * The balance was read: takes what it covers, oldest first, stopping at the first that it does
   * not (a large order is not overtaken for ever by small ones). Unknown amounts go through.
   */
  release(balance: number): FundsWait[] {
    this.lastFundsCheck = new Date().getTime();
    this.fundsUrgent = false;
    this.balanceRead(balance);
    const out: FundsWait[] = [];
    let left = balance;
    this.funds.sort((a, b) => Date.parse(a.since) - Date.parse(b.since));
    while (this.funds.length > 0) {
      const amount = amountOf(this.funds[0]!) ?? 0;
      if (amount > left) break;
      left -= amount;
      out.push(this.funds.shift()!);
    }
    return out;
  }

  /** Orders released from the funds list go first into the next batch. */
  requeue(orders: readonly ReadyOrder[]): void {
    this.queue.unshift(...orders);
    this.wake();
  }

  /** The balance check failed: try again at the next interval. */
  fundsCheckFailed(): void {
    this.lastFundsCheck = new Date().getTime();
    this.fundsUrgent = false;
  }

  // ---- the loop's timing ------------------------------------------------------------------------

  /**
   * How long the loop may sleep before something is due; undefined: until woken. With no room
   * for another batch, a finished batch wakes it.
   */
  nextWakeMs(now: number, roomForBatch: boolean): number | undefined {
    const at: number[] = [];
    const s = this.settings;
    if (this.queue.length > 0 && roomForBatch) {
      at.push(this.lastArrival + s.quietMs, Date.parse(this.queue[0]!.readyAt) + s.maxWaitMs);
    }
    if (this.funds.length > 0) at.push(this.lastFundsCheck + s.fundsCheckMs);
    if (at.length === 0) return undefined;
    return Math.max(1, Math.min(...at) - now);
  }

  private wake(): void {
    this.wakeVersion += 1;
  }

  get idle(): boolean {
    return this.batches.size === 0;
  }

  carryOver(): CheckoutCarryOver {
    return {
      settings: this.settings,
      queue: this.queue,
      funds: this.funds,
      ...(this.balance !== undefined && { balance: this.balance }),
      lastFundsCheck: this.lastFundsCheck,
      batchesDone: this.batchesDone,
      ordersPaid: this.ordersPaid,
      nextBatch: this.nextBatch,
    };
  }

  view(): CheckoutView {
    return {
      settings: this.settings,
      waiting: this.queue.length,
      batches: [...this.batches.values()].map((b) => ({
        id: b.id,
        orders: b.orders.length,
        step: b.step,
        ...(b.waitingFor !== undefined && { waitingFor: b.waitingFor }),
      })),
      awaitingFunds: this.funds.map((w) => ({
        what:
          w.kind === 'orders'
            ? `order ${w.order.svcOrderId}`
            : w.kind === 'shipment'
              ? `shipment ${w.shipment.shipmentOrderId} (${w.shipment.orders.length} orders)`
              : `order workflow ${w.workflowId}`,
        ...(amountOf(w) !== undefined && { amount: amountOf(w) }),
        since: w.since,
      })),
      ...(this.balance !== undefined && { balance: this.balance }),
      batchesDone: this.batchesDone,
      ordersPaid: this.ordersPaid,
    };
  }
}
