/**
 * The checkout coordinator's state and its only writer: the orders waiting for the next batch,
 * the batches under way, and what waits for the balance (oldest first). The workflow loop
 * (coordinator.ts) asks it what is due; its batches report through it.
 */
import type {
  CheckoutMembership,
  CheckoutOutcome,
  CheckoutView,
  FundsNews,
  ReadyOrder,
} from './contract.js';
import type { CheckoutSettings } from '../terms/checkoutSettings.js';

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
  | { kind: 'waiter'; workflowId: string; amount: number; since: string }
  /** Orders paying one confirmed shipment alone: its amount counts once, all go on together. */
  | {
      kind: 'shipmentWaiters';
      shipmentOrderId: string;
      workflowIds: string[];
      amount: number;
      since: string;
    };

export interface BatchView {
  id: string;
  orders: ReadyOrder[];
  step: string;
  waitingFor?: string;
  /** When it started to wait for `waitingFor` (ms). */
  waitingSince?: number;
  /** A supplier call that may act (addCart on) has included its orders: none may leave now. */
  committed?: boolean;
  /** It waited past the coordinator's bound (counted once). */
  lagging?: boolean;
}

export interface CheckoutCarryOver {
  settings: CheckoutSettings;
  queue: ReadyOrder[];
  funds: FundsWait[];
  balance?: { amount: number; at: string };
  lastFundsCheck?: number;
  /** A top-up was heard and the balance not read since (absent in runs before 2026-11). */
  fundsUrgent?: boolean;
  batchesDone: number;
  ordersPaid: number;
  nextBatch: number;
}

/** What the carried state may weigh (JSON characters): far below Temporal's 2 MB input limit. */
export const CARRY_BUDGET = 512 * 1024;

const amountOf = (w: FundsWait): number | undefined =>
  w.kind === 'orders' ? w.order.amount : w.kind === 'shipment' ? w.shipment.amount : w.amount;

const holds = (w: FundsWait, workflowId: string): boolean =>
  w.kind === 'orders'
    ? w.order.workflowId === workflowId
    : w.kind === 'shipment'
      ? w.shipment.orders.some((o) => o.workflowId === workflowId)
      : w.kind === 'waiter'
        ? w.workflowId === workflowId
        : w.workflowIds.includes(workflowId);

export class CheckoutState {
  settings: CheckoutSettings;
  private queue: ReadyOrder[];
  private funds: FundsWait[];
  private readonly batches = new Map<string, BatchView>();
  /** Orders released from a batch whose outcome is being told, with its kind. */
  private readonly telling = new Map<string, CheckoutOutcome['kind']>();
  private balance: { amount: number; at: string } | undefined;
  private lastFundsCheck: number;
  private lastArrival = 0;
  private fundsUrgent: boolean;
  /** Grows with every top-up heard: a read that started before one does not clear it. */
  private topUps = 0;
  private batchesDone: number;
  private ordersPaid: number;
  private nextBatch: number;
  /** Signals this run received (Temporal refuses more than 10,000 per run). */
  signalsReceived = 0;
  /** Outcomes being signalled to orders now (Temporal allows 2,000 pending). */
  tellsInFlight = 0;
  /** Outcomes owed to orders: being signalled, or paced to be. */
  private tellsOwed = 0;
  /** Releases told by activity in this run: each call's key for its signals' request ids. */
  private tellCalls = 0;
  /** Batches were due while MAX_BATCHES_IN_FLIGHT ran: counted once per episode. */
  full = false;
  /** Grows when the loop must look again before its timer: not on every arrival (timers bill). */
  wakeVersion = 0;

  /**
   * `outcomesByActivity`: this run tells a release's orders through one activity (decided once,
   * where the run starts: Patch.OutcomesByActivity).
   */
  constructor(
    from: CheckoutCarryOver,
    readonly outcomesByActivity = false,
  ) {
    this.settings = from.settings;
    this.queue = from.queue;
    this.funds = from.funds;
    this.balance = from.balance;
    this.lastFundsCheck = from.lastFundsCheck ?? new Date().getTime();
    this.fundsUrgent = from.fundsUrgent ?? false;
    this.batchesDone = from.batchesDone;
    this.ordersPaid = from.ordersPaid;
    this.nextBatch = from.nextBatch;
    if (this.queue.length > 0) this.lastArrival = new Date().getTime();
  }

  configure(settings: CheckoutSettings): void {
    this.settings = settings;
    this.wake();
  }

  signalled(): void {
    this.signalsReceived += 1;
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

  /**
   * A cancel. The order leaves only if no supplier call of a batch that may act has included it
   * (queued, in a batch not yet at its cart, waiting for funds unconfirmed): `withdrawn`; else
   * `withdrawRefused` with why — so an order never hears both `withdrawn` and `paid`.
   */
  withdraw(workflowId: string): CheckoutOutcome {
    const queued = this.queue.findIndex((o) => o.workflowId === workflowId);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      return { kind: 'withdrawn' };
    }
    for (const b of this.batches.values()) {
      if (!b.orders.some((o) => o.workflowId === workflowId)) continue;
      if (!b.committed) {
        b.orders = b.orders.filter((o) => o.workflowId !== workflowId);
        return { kind: 'withdrawn' };
      }
      return {
        kind: 'withdrawRefused',
        why: `its checkout batch ${b.id} is at ${b.step} with ${b.orders.length} orders: the supplier carts, confirms and pays them together; wait for the outcome (an intercepted order can be cancelled then)`,
      };
    }
    const held = this.funds.find((w) => holds(w, workflowId));
    if (held?.kind === 'orders') {
      this.funds = this.funds.filter((w) => w !== held);
      this.wake();
      return { kind: 'withdrawn' };
    }
    if (held?.kind === 'waiter') {
      return {
        kind: 'withdrawRefused',
        why: 'it pays alone (the checkout only watches the balance for it): its own steps decide a cancel, then it stops waiting',
      };
    }
    if (held !== undefined) {
      const id = held.kind === 'shipment' ? held.shipment.shipmentOrderId : held.shipmentOrderId;
      return {
        kind: 'withdrawRefused',
        why: `it is confirmed into shipment ${id} with other orders, which the supplier pays only as a whole`,
      };
    }
    return {
      kind: 'withdrawRefused',
      why: 'the checkout does not hold it (its outcome was sent already, or the checkout restarted): it goes on with its own outcome, or joins again',
    };
  }

  /** Where the coordinator holds an order (the `checkoutMember` query). */
  member(workflowId: string): CheckoutMembership {
    if (this.queue.some((o) => o.workflowId === workflowId)) return { state: 'queued' };
    const telling = this.telling.get(workflowId);
    if (telling !== undefined) return { state: 'released', outcome: telling };
    for (const b of this.batches.values()) {
      if (b.orders.some((o) => o.workflowId === workflowId)) {
        return { state: 'inBatch', batchId: b.id, step: b.step };
      }
    }
    if (this.funds.some((w) => holds(w, workflowId))) return { state: 'awaitingFunds' };
    return { state: 'unknown' };
  }

  private knows(workflowId: string): boolean {
    const { state } = this.member(workflowId);
    return state !== 'unknown' && state !== 'released';
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
    if (waitingFor !== undefined && batch.waitingFor === undefined) {
      batch.waitingSince = new Date().getTime();
      // The loop sets a timer for the bound of this wait.
      this.wake();
    }
    batch.step = step;
    if (waitingFor === undefined) {
      delete batch.waitingFor;
      delete batch.waitingSince;
      delete batch.lagging;
    } else batch.waitingFor = waitingFor;
  }

  /** The batch is about to send a call that may act for its orders: none may be withdrawn now. */
  committing(batch: BatchView, step: string): void {
    batch.committed = true;
    this.batchAt(batch, step);
  }

  /** Batches that started to wait `boundMs` ago or more and were not counted yet; now counted. */
  newlyLagging(now: number, boundMs: number): BatchView[] {
    const out: BatchView[] = [];
    for (const b of this.batches.values()) {
      if (b.lagging || b.waitingSince === undefined || now - b.waitingSince < boundMs) continue;
      b.lagging = true;
      out.push(b);
    }
    return out;
  }

  /** Whether orders wait for a batch while none can start: true once per episode. */
  becameFull(now: number, maxInFlight: number): boolean {
    const full = this.batchDue(now) && this.batchesInFlight >= maxInFlight;
    const began = full && !this.full;
    this.full = full;
    return began;
  }

  /**
   * Orders leave a batch with their outcome (paid, intercepted, alone, short of funds). Until
   * `told`, the coordinator still answers for them: an order that asks meanwhile (its bound
   * passed) waits for its outcome rather than settle from a supplier's view that may lag.
   */
  released(batch: BatchView, workflowIds: readonly string[], outcome: CheckoutOutcome): void {
    batch.orders = batch.orders.filter((o) => !workflowIds.includes(o.workflowId));
    if (outcome.kind === 'paid') this.ordersPaid += workflowIds.length;
    for (const id of workflowIds) this.telling.set(id, outcome.kind);
  }

  /** The released orders were told their outcomes (or could not be: gone). */
  told(workflowIds: readonly string[]): void {
    for (const id of workflowIds) this.telling.delete(id);
  }

  batchFinished(batch: BatchView): void {
    this.batches.delete(batch.id);
    this.batchesDone += 1;
    this.wake();
  }

  /** Starts a batch for a shipment released from the funds list (its orders, already confirmed). */
  resumeShipment(shipment: ShortShipment): BatchView {
    const batch: BatchView = {
      id: shipment.batchId,
      orders: shipment.orders,
      step: 'payment',
      committed: true,
    };
    this.batches.set(batch.id, batch);
    return batch;
  }

  // ---- telling orders ---------------------------------------------------------------------------

  tellOwed(): void {
    this.tellsOwed += 1;
  }

  tellStarted(): void {
    this.tellsInFlight += 1;
  }

  /** A release's tell activity is called: its key within the run (`run` is the run's id). */
  tellCall(run: string): string {
    this.tellCalls += 1;
    return `${run}/T${this.tellCalls}`;
  }

  tellEnded(): void {
    this.tellsInFlight -= 1;
    this.tellsOwed -= 1;
  }

  /** A tell activity's call ended (its fallback signals too). */
  tellSettled(): void {
    this.tellsOwed -= 1;
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
      this.topUps += 1;
      this.wake();
    } else if (news.kind === 'wait') {
      this.waits(news);
    } else {
      this.stopWaiting(news.workflowId);
    }
  }

  private waits(news: Extract<FundsNews, { kind: 'wait' }>): void {
    if (this.funds.some((w) => holds(w, news.workflowId))) return;
    const { workflowId, amount, since, shipmentOrderId } = news;
    if (shipmentOrderId === undefined) {
      this.funds.push({ kind: 'waiter', workflowId, amount, since });
      return;
    }
    const siblings = this.funds.find(
      (w) => w.kind === 'shipmentWaiters' && w.shipmentOrderId === shipmentOrderId,
    );
    if (siblings?.kind === 'shipmentWaiters') siblings.workflowIds.push(workflowId);
    else {
      this.funds.push({
        kind: 'shipmentWaiters',
        shipmentOrderId,
        workflowIds: [workflowId],
        amount,
        since,
      });
    }
  }

  /**
   * The order no longer waits (paid, cancelled, gone): it leaves the funds list at once, and a
   * shipment whose every order left goes with it, so nothing younger waits behind it.
   */
  private stopWaiting(workflowId: string): void {
    const left: FundsWait[] = [];
    for (const w of this.funds) {
      if (w.kind === 'shipment') {
        const orders = w.shipment.orders.filter((o) => o.workflowId !== workflowId);
        if (orders.length > 0) left.push({ ...w, shipment: { ...w.shipment, orders } });
      } else if (w.kind === 'shipmentWaiters') {
        const workflowIds = w.workflowIds.filter((id) => id !== workflowId);
        if (workflowIds.length > 0) left.push({ ...w, workflowIds });
      } else if (!holds(w, workflowId)) left.push(w);
    }
    if (left.length !== this.funds.length) this.wake();
    this.funds = left;
  }

  fundsCheckDue(now: number): boolean {
    if (this.funds.length === 0) return false;
    return this.fundsUrgent || now - this.lastFundsCheck >= this.settings.fundsCheckMs;
  }

  /** A balance read starts: what it answers covers the top-ups heard until now. */
  fundsCheckStarted(): number {
    return this.topUps;
  }

  private fundsChecked(topUpsAtStart: number): void {
    this.lastFundsCheck = new Date().getTime();
    // A top-up heard while the balance was being read may not be in it: read again.
    this.fundsUrgent = this.topUps !== topUpsAtStart;
  }

  /**
   * The balance was read: takes what it covers, oldest first, stopping at the first that it does
   * not (a large order is not overtaken for ever by small ones). Unknown amounts go through.
   */
  release(balance: number, topUpsAtStart: number): FundsWait[] {
    this.fundsChecked(topUpsAtStart);
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
  fundsCheckFailed(topUpsAtStart: number): void {
    this.fundsChecked(topUpsAtStart);
  }

  // ---- the loop's timing ------------------------------------------------------------------------

  /**
   * How long the loop may sleep before something is due; undefined: until woken. With no room
   * for another batch, a finished batch wakes it. A batch waiting is looked at again once it
   * waited `lagBoundMs`. Without `fundsToo` (a run that drains) balance reads are not due.
   */
  nextWakeMs(
    now: number,
    roomForBatch: boolean,
    lagBoundMs: number,
    fundsToo = true,
  ): number | undefined {
    const at: number[] = [];
    const s = this.settings;
    if (this.queue.length > 0 && roomForBatch) {
      at.push(this.lastArrival + s.quietMs, Date.parse(this.queue[0]!.readyAt) + s.maxWaitMs);
    }
    if (this.funds.length > 0 && fundsToo) {
      at.push(this.fundsUrgent ? now : this.lastFundsCheck + s.fundsCheckMs);
    }
    for (const b of this.batches.values()) {
      if (b.waitingSince !== undefined && !b.lagging) at.push(b.waitingSince + lagBoundMs);
    }
    if (at.length === 0) return undefined;
    return Math.max(1, Math.min(...at) - now);
  }

  private wake(): void {
    this.wakeVersion += 1;
  }

  get idle(): boolean {
    return this.batches.size === 0 && this.tellsOwed === 0;
  }

  /**
   * What the next run starts from, bounded by CARRY_BUDGET whatever the backlog: past it the
   * youngest unconfirmed orders are left out (the queue's first, then those waiting for funds
   * unconfirmed, then orders paying alone); each re-joins by its own bounded wait. Confirmed
   * shipments are always carried. Returns how many orders were left out.
   */
  carryOver(budget = CARRY_BUDGET): { carried: CheckoutCarryOver; leftOut: number } {
    const carried: CheckoutCarryOver = {
      settings: this.settings,
      queue: [...this.queue],
      funds: [...this.funds].sort((a, b) => Date.parse(a.since) - Date.parse(b.since)),
      ...(this.balance !== undefined && { balance: this.balance }),
      lastFundsCheck: this.lastFundsCheck,
      fundsUrgent: this.fundsUrgent,
      batchesDone: this.batchesDone,
      ordersPaid: this.ordersPaid,
      nextBatch: this.nextBatch,
    };
    let leftOut = 0;
    let size = JSON.stringify(carried).length;
    const drop = (weight: number) => {
      size -= weight;
      leftOut += 1;
    };
    while (size > budget && carried.queue.length > 0) {
      drop(JSON.stringify(carried.queue.pop()).length + 1);
    }
    for (const kind of ['orders', 'waiter', 'shipmentWaiters'] as const) {
      for (let i = carried.funds.length - 1; size > budget && i >= 0; i--) {
        if (carried.funds[i]!.kind !== kind) continue;
        drop(JSON.stringify(carried.funds.splice(i, 1)[0]).length + 1);
      }
    }
    return { carried, leftOut };
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
        ...(b.waitingSince !== undefined && {
          waitingSince: new Date(b.waitingSince).toISOString(),
        }),
        ...(b.lagging === true && { lagging: true }),
        orderIds: b.orders.map((o) => o.workflowId),
      })),
      ...(this.full && { batchesFull: true }),
      awaitingFunds: this.funds.map((w) => ({
        what: describe(w),
        ...(amountOf(w) !== undefined && { amount: amountOf(w) }),
        since: w.since,
      })),
      ...(this.balance !== undefined && { balance: this.balance }),
      batchesDone: this.batchesDone,
      ordersPaid: this.ordersPaid,
    };
  }
}

function describe(w: FundsWait): string {
  switch (w.kind) {
    case 'orders':
      return `order ${w.order.svcOrderId}`;
    case 'shipment':
      return `shipment ${w.shipment.shipmentOrderId} (${w.shipment.orders.length} orders)`;
    case 'waiter':
      return `order workflow ${w.workflowId}`;
    case 'shipmentWaiters':
      return `shipment ${w.shipmentOrderId} paid alone by ${w.workflowIds.join(', ')}`;
  }
}
