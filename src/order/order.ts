/**
 * The state of one order workflow, as one object and its only writer: the status snapshot (the
 * `status` query), the search attributes and current details that mirror it, what the supplier
 * has told us, where the money stands, and the operator actions waiting to be applied. Steps say
 * what happened through its methods; they never set its fields.
 */
import type { Duration, SearchAttributeUpdatePair } from '@temporalio/common';
import {
  condition,
  metricMeter,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  FINAL_STAGES,
  Stage,
  WAITING_STAGES,
  type ActionResult,
  type AmendInput,
  type OrderStatus,
  type SupplierNews,
  type TimelineEntry,
  type Reason,
} from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import {
  amendOrder,
  flowLabel,
  withChanges,
  type AmendableField,
  type OrderInput,
} from './orderInput.js';
import {
  StoreEventType,
  type StoreEventDataMap,
  type StoreEventsView,
} from '../storeEvents/contract.js';
import type { Amounts } from './activities.js';
import {
  FulfillmentFlow,
  FulfillmentStage,
  NeedsAttention,
  OrderNumber,
  StoreEventsBehind,
  SvcOrderId,
} from '../temporal/searchAttributes.js';
import { MakeupStatus } from '../supplier/api/constants.js';
import { SupplierCode } from '../supplier/errors.js';
import { counterOf, METRICS } from '../metrics.js';
import { storeEventDelivery } from '../durable/activityProxies.js';
import type { CheckoutOutcome } from '../checkout/contract.js';
import { renderDetails } from './details.js';
import { paramErrorFields } from '../durable/failures.js';
import { stopData } from './storeEventData.js';
import { StoreEventOutbox, type OutboxHost } from '../storeEvents/outbox.js';
import { DEFAULT_SUPPLIER_LAG_SECONDS } from '../durable/supplierStep.js';
import type { AttentionOptions, OutcomeInDoubt, StepHost } from '../durable/stepHost.js';

export type ActionKind =
  'resume' | 'changeLogistics' | 'approvePayment' | 'provideWaybill' | 'cancel' | 'amend';

const ALL_ACTIONS: readonly ActionKind[] = [
  'resume',
  'changeLogistics',
  'approvePayment',
  'provideWaybill',
  'cancel',
  'amend',
];

export interface PendingAction {
  id: number;
  kind: ActionKind;
  input: unknown;
  result?: ActionResult;
}

/** Thrown inside the workflow when an operator cancels; caught at the top. */
export class CancelRequested extends Error {
  constructor(readonly reason: string) {
    super(`cancelled: ${reason}`);
  }
}

/**
 * Where the order's money stands. Only `none` lets an order be cancelled: from the moment a
 * payment is sent until the supplier shows it paid or proves it unpaid, nothing a payment would
 * forbid is allowed.
 */
type Payment = 'none' | 'sending' | 'unknown' | 'paid';

export interface WaitOptions {
  /** Ends the wait without an action (an outside event arrived). */
  until?: () => boolean;
  /** Ends the wait after this long without either; the order stays in the stage. */
  timeout?: Duration;
  /** A cancel ends the wait and is returned to the caller instead of thrown. */
  cancelReturns?: boolean;
  /**
   * A short wait that is part of the work (the checkout batch): the stage reached is written with
   * the next one instead of now (lean mode).
   */
  brief?: boolean;
  /** A brief wait that lasts this long is no longer brief: what the order shows is written. */
  flushAfter?: Duration;
}

export interface OrderOptions {
  /**
   * Search attributes are upserted once per workflow task and only when a value changes, starting
   * from those the order was started with (each upsert is a billed action).
   */
  lean?: boolean;
}

/** How many webhook message ids are remembered for deduplication. */
const SEEN_LIMIT = 1_000;

export class Order implements StepHost, OutboxHost {
  readonly status: OrderStatus;
  /** The latest word from the supplier, merged from webhooks and sweeps. */
  readonly news: Omit<SupplierNews, 'messageId' | 'kind'> & {
    connected?: boolean;
    toppedUp?: boolean;
  } = {};
  /** Grows with every new message, so waits can tell that something arrived. */
  newsVersion = 0;
  /** The operator actions the workflow waits for right now; validators refuse the others. */
  readonly accepting = new Set<ActionKind>();
  /** The cancel action being carried out, answered once the order is CANCELLED. */
  pendingCancel: PendingAction | undefined;

  private payment: Payment = 'none';
  private cartIsConfirmed = false;
  private approvalAwaited = false;
  /** The last stage in which the order was at work, not waiting: where a finished wait returns. */
  private workingStage: Stage = Stage.RECEIVED;
  private readonly seen: string[] = [];
  private readonly actions: PendingAction[] = [];
  private nextActionId = 1;
  private approvalDone = false;
  /** A cancel taken while the checkout coordinator is asked to let the order go. */
  private heldCancel: PendingAction | undefined;
  private readonly checkoutInbox: CheckoutOutcome[] = [];
  /** The batch's shipment the order was confirmed into, and the other orders in it. */
  private shipment: { id: string; siblings: readonly string[] | undefined } | undefined;
  /** Checking out alone after its batch: a `paid` from a sibling settles its shipment. */
  private alone = false;
  /** A sibling's word that the shared shipment is paid. */
  private siblingPaid: Extract<CheckoutOutcome, { kind: 'paid' }> | undefined;
  private readonly lean: boolean;
  /** Lean mode: search-attribute values as last written, and those to write at the task's end. */
  private readonly written = new Map<string, unknown>();
  private readonly toWrite = new Map<string, SearchAttributeUpdatePair>();
  private readonly outbox: StoreEventOutbox;
  /** Events told once in an order's life (all but needs_attention). */
  private readonly told = new Set<StoreEventType>();
  /** The store has heard of the stop the order is in (reset by every stage entered). */
  private stopTold = false;
  /** The tracking number the store was told with order.shipped. */
  private shippedWith: string | undefined;
  /** The supplier order the store was told of with order.created. */
  private createdWith: string | undefined;
  /** The order as submitted, with the amendments taken since. */
  private current: OrderInput;
  /** The amended fields, as the create body must carry them (null: removed). */
  private readonly amendments: Record<string, unknown> = {};

  constructor(input: OrderInput, options: OrderOptions = {}) {
    this.current = input;
    this.lean = options.lean === true;
    if (this.lean) {
      const started = workflowInfo().typedSearchAttributes;
      for (const key of [FulfillmentStage, OrderNumber, FulfillmentFlow, NeedsAttention]) {
        const value = started.get(key);
        if (value !== undefined) this.written.set(key.name, value);
      }
    }
    this.outbox = new StoreEventOutbox(input.order.orderNumber, storeEventDelivery(), this);
    this.status = {
      orderNumber: input.order.orderNumber,
      flow: flowLabel(input.fulfillment),
      stage: Stage.RECEIVED,
      atSupplier: false,
      timeline: [],
    };
    this.enter(Stage.RECEIVED);
  }

  get stage(): Stage {
    return this.status.stage;
  }

  /** The order: as submitted, with the amendments taken since. */
  get input(): OrderInput {
    return this.current;
  }

  /** Moves to a stage: timeline, search attributes and the UI's current details follow. */
  enter(stage: Stage, note?: string): void {
    if (!WAITING_STAGES.includes(stage)) {
      // Reasons and errors describe a stop; moving on clears them.
      delete this.status.interception;
      delete this.status.error;
      this.workingStage = stage;
    }
    delete this.status.waitingFor;
    this.stopTold = false;
    this.status.stage = stage;
    const entry: TimelineEntry = {
      stage,
      at: new Date().toISOString(),
      ...(note !== undefined && { note }),
    };
    this.status.timeline.push(entry);
    // Skipped while replaying: a worker catching up on a history does not count its stages again.
    counterOf(metricMeter, METRICS.orderStageEntered).add(1, { stage });
    this.upsert([
      { key: FulfillmentStage, value: stage },
      { key: OrderNumber, value: this.status.orderNumber },
      { key: FulfillmentFlow, value: this.status.flow },
      { key: NeedsAttention, value: this.needsPerson },
    ]);
    this.show();
  }

  private upsert(pairs: SearchAttributeUpdatePair[]): void {
    if (!this.lean) {
      upsertSearchAttributes(pairs);
      return;
    }
    for (const pair of pairs) this.toWrite.set(pair.key.name, pair);
  }

  /**
   * Lean mode: writes the search attributes that changed since the last write, as one upsert.
   * Called where the order starts to wait (a person, the supplier's news, a busy supplier) and at
   * the end, so stages passed through between waits cost no action of their own.
   */
  flush(): void {
    const changed = [...this.toWrite.values()].filter(
      (p) => this.written.get(p.key.name) !== p.value,
    );
    this.toWrite.clear();
    if (changed.length === 0) return;
    for (const p of changed) this.written.set(p.key.name, p.value);
    upsertSearchAttributes(changed);
  }

  /** Waits for the supplier's next news (or the timeout: false), visible as it stands. */
  async waitForNews(seen: number, timeout?: number): Promise<boolean> {
    this.flush();
    if (timeout === undefined) {
      await condition(() => this.newsVersion !== seen);
      return true;
    }
    return condition(() => this.newsVersion !== seen, timeout);
  }

  /** Says what the order waits for (status and UI); what it shows is written now. */
  waitFor(what: string): void {
    this.status.waitingFor = what;
    this.show();
    this.flush();
  }

  /** A wait ended with the thing it waited for: the order is at work again where it was. */
  waitEnded(note?: string): void {
    if (this.stage !== this.workingStage) this.enter(this.workingStage, note);
    else this.doneWaiting();
  }

  doneWaiting(): void {
    if (this.status.waitingFor === undefined) return;
    delete this.status.waitingFor;
    this.show();
  }

  /** Records a note on the timeline without changing stage. */
  note(note: string): void {
    this.status.timeline.push({ stage: this.stage, at: new Date().toISOString(), note });
    this.show();
  }

  /** A step stopped: why, for the operator (cleared when the order moves on). */
  failed(info: FailureInfo): void {
    this.status.error = info;
    this.show();
  }

  intercepted(step: string, reasons: Reason[]): void {
    this.status.interception = { step, reasons };
    this.show();
  }

  private show(): void {
    setCurrentDetails(renderDetails(this.status));
  }

  private get needsPerson(): boolean {
    return WAITING_STAGES.includes(this.stage) || this.approvalAwaited;
  }

  // ---- what the supplier did ------------------------------------------------------------------

  created(svcOrderId: string, amounts: Amounts | undefined, note?: string): void {
    this.status.svcOrderId = svcOrderId;
    this.status.atSupplier = true;
    if (amounts !== undefined) this.status.amounts = amounts;
    this.upsert([{ key: SvcOrderId, value: svcOrderId }]);
    this.enter(Stage.CREATED, note);
    // Told again when an amend replaced the order at the supplier (a new svcOrderId).
    if (this.createdWith === svcOrderId) return;
    this.createdWith = svcOrderId;
    this.outbox.emit(StoreEventType.OrderCreated, this.stage, {
      svcOrderId,
      amounts: { ...this.status.amounts, currency: 'USD' },
    });
  }

  createdUnconnected(amounts: Amounts): void {
    this.status.amounts = amounts;
    this.status.atSupplier = true;
  }

  /** Flow C: the supplier answered that it holds the order already (unconnected, so unseen). */
  heldUnconnected(): void {
    this.status.atSupplier = true;
  }

  // ---- amending the order before the supplier has it -------------------------------------------

  /** The createOrderV3 body planned from the order, with the amendments taken since. */
  createBody<T extends object>(planned: T): T {
    return withChanges(planned, this.amendments);
  }

  /** Whether the supplier has nothing of the order, and no create of it is in doubt. */
  get amendable(): boolean {
    return (
      this.status.atSupplier !== true &&
      this.status.outcomeUnknown?.step !== CREATE_STEP &&
      !FINAL_STAGES.includes(this.stage)
    );
  }

  /** Why an amend is not taken now. */
  amendRefusal(): string {
    if (FINAL_STAGES.includes(this.stage)) return 'the order is finished';
    if (this.status.outcomeUnknown?.step === CREATE_STEP) {
      return "the create's answer was lost; dropflow looks it up first";
    }
    if (this.status.atSupplier === true) {
      const which = this.status.svcOrderId ?? 'unconnected, flow C';
      return (
        `the supplier has created the order (${which}) and its API changes no address or ` +
        'products of an order it has (only its logistics line: changeLogistics while intercepted); cancel it instead'
      );
    }
    return (
      'the order is at work: amend is taken while it stops before the supplier has it ' +
      `(NEEDS_ATTENTION, or INTERCEPTED at ${CREATE_STEP})`
    );
  }

  /**
   * Takes an amend action: the order's body becomes the amended one (checked again), its later
   * create carries the changes, and the timeline names the changed fields (never their values).
   * Returns the changed fields, or undefined when the changes no longer make a valid order (the
   * action is then answered as refused).
   */
  amended(action: PendingAction): AmendableField[] | undefined {
    const { order: changes, by } = (action.input ?? {}) as AmendInput;
    const result = amendOrder(this.current, changes);
    if (!result.ok) {
      const issues = result.issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
      this.answer(action, `amend refused: ${issues}`, false);
      return undefined;
    }
    this.current = result.input;
    const after = result.input.order as Record<string, unknown>;
    for (const field of result.fields) this.amendments[field] = after[field] ?? null;
    if (result.fields.includes('logisticName') && after['logisticName'] !== undefined) {
      this.status.logisticName = after['logisticName'] as string;
    }
    this.note(`amended: ${result.fields.join(', ')}${by !== undefined ? ` (by ${by})` : ''}`);
    return result.fields;
  }

  /** The supplier deleted the order so that it can be created again as amended. */
  deletedToAmend(svcOrderId: string): void {
    delete this.status.svcOrderId;
    delete this.status.amounts;
    this.status.atSupplier = false;
    this.enter(Stage.RECEIVED, `deleted ${svcOrderId} at the supplier to create it again amended`);
  }

  logisticsChosen(logisticName: string): void {
    this.status.logisticName = logisticName;
  }

  cartConfirmed(shipmentOrderId: string, note?: string): void {
    this.cartIsConfirmed = true;
    this.status.shipmentOrderId = shipmentOrderId;
    this.enter(Stage.CONFIRMED, note);
  }

  /** The supplier confirmed the cart: the order can no longer be deleted. */
  get confirmed(): boolean {
    return this.cartIsConfirmed;
  }

  parentOrderGenerated(payId: string): void {
    this.status.payId = payId;
  }

  get supplierLagMs(): number {
    return (this.input.fulfillment.supplierLagSeconds ?? DEFAULT_SUPPLIER_LAG_SECONDS) * 1_000;
  }

  unknownOutcome(): OutcomeInDoubt | undefined {
    return this.status.outcomeUnknown;
  }

  /** A call that may have acted lost its answer; until settled, it is not sent again. */
  outcomeUnknown(step: string): void {
    this.status.outcomeUnknown ??= { step, since: new Date().toISOString() };
    if (step === PAYMENT_STEP) this.payment = 'unknown';
    this.show();
  }

  /** The truth about an unknown outcome is established: `done`, or proven not done. */
  outcomeSettled(done: boolean): void {
    // A payment proven not made is about to be sent again.
    if (!done && this.status.outcomeUnknown?.step === PAYMENT_STEP && this.payment === 'unknown') {
      this.payment = 'sending';
    }
    delete this.status.outcomeUnknown;
    this.show();
  }

  /** The tracking the supplier told us, in the status. */
  trackingHeard(): void {
    const n = this.news;
    if (n.trackNumber !== undefined) this.status.trackNumber = n.trackNumber;
    if (n.trackingUrl !== undefined) this.status.trackingUrl = n.trackingUrl;
    if (n.trackingEvents !== undefined) this.status.trackingEvents = n.trackingEvents;
    if (n.logisticName !== undefined) this.status.logisticName = n.logisticName;
    // A tracking number that changed after shipping is told again.
    if (
      this.told.has(StoreEventType.OrderShipped) &&
      this.status.trackNumber !== this.shippedWith
    ) {
      this.tellShipped();
    }
  }

  shipped(): void {
    this.enter(Stage.SHIPPED);
    if (!this.told.has(StoreEventType.OrderShipped)) this.tellShipped();
  }

  private tellShipped(): void {
    const s = this.status;
    this.told.add(StoreEventType.OrderShipped);
    this.shippedWith = s.trackNumber;
    this.outbox.emit(StoreEventType.OrderShipped, this.stage, {
      ...(s.trackNumber !== undefined && { trackNumber: s.trackNumber }),
      ...(s.trackingUrl !== undefined && { trackingUrl: s.trackingUrl }),
      ...(s.logisticName !== undefined && { logisticName: s.logisticName }),
      ...(this.carrier() !== undefined && { carrier: this.carrier() }),
    });
  }

  delivered(): void {
    this.enter(Stage.DELIVERED);
    this.tellOnce(StoreEventType.OrderDelivered, {
      deliveredAt: new Date().toISOString(),
      ...(this.status.trackNumber !== undefined && { trackNumber: this.status.trackNumber }),
    });
  }

  proofOfDeliveryReceived(urls: string[]): void {
    this.status.proofOfDelivery = urls;
    this.enter(Stage.COMPLETED, 'proof of delivery received');
    this.tellOnce(StoreEventType.OrderCompleted, { proofOfDelivery: urls });
  }

  /** Delivered, and the supplier had no proof of delivery within the wait. */
  completedWithoutProof(why: string): void {
    this.enter(Stage.COMPLETED, why);
    this.tellOnce(StoreEventType.OrderCompleted, { proofOfDelivery: [], noProofReason: why });
  }

  /** Cancelled here (an operator) or by the supplier. */
  cancelled(reason: string, by: 'operator' | 'supplier'): void {
    this.enter(Stage.CANCELLED, reason);
    this.tellOnce(StoreEventType.OrderCancelled, { reason, by });
  }

  /** The waybill's carrier (platform logistics), else the logistics line. */
  private carrier(): string | undefined {
    return this.input.fulfillment.waybill?.carrier ?? this.status.logisticName;
  }

  // ---- the store ------------------------------------------------------------------------------

  private tellOnce<T extends StoreEventType>(type: T, data: StoreEventDataMap[T]): void {
    if (this.told.has(type)) return;
    this.told.add(type);
    this.outbox.emit(type, this.stage, data);
  }

  storeEventsChanged(view: StoreEventsView): void {
    this.status.storeEvents = view;
    this.show();
  }

  storeEventsBehind(behind: boolean): void {
    this.upsert([{ key: StoreEventsBehind, value: behind }]);
    this.flush();
  }

  /** At the end: what the order shows is written, then its events reach the store. */
  async storeEventsDelivered(): Promise<void> {
    if (!this.outbox.delivering) return;
    this.flush();
    await this.outbox.allDelivered();
  }

  // ---- money ----------------------------------------------------------------------------------

  /** A payment request is about to leave: from here the order cannot be cancelled. */
  paymentSending(): void {
    if (this.payment === 'none') this.payment = 'sending';
  }

  /** The supplier refused the payment, and no earlier attempt is in doubt: nothing was paid. */
  paymentRefused(): void {
    if (this.payment === 'sending') this.payment = 'none';
  }

  /** The supplier took the money (its answer, or its own view of the order shows it). */
  paymentMade(note?: string): void {
    this.payment = 'paid';
    this.enter(Stage.PAID, note);
    this.tellOnce(StoreEventType.OrderPaid, {
      ...(this.status.amounts?.orderAmount !== undefined && {
        amount: this.status.amounts.orderAmount,
      }),
      currency: 'USD',
      paidAt: new Date().toISOString(),
      ...(this.status.payId !== undefined && { payId: this.status.payId }),
    });
  }

  get paid(): boolean {
    return this.payment === 'paid';
  }

  /**
   * Whether the order can still be cancelled: nothing paid, no payment sent or in doubt, and no
   * shipment shared with other orders (one of them may pay it whole).
   */
  get cancellable(): boolean {
    return this.payment === 'none' && this.shipmentRefusal === undefined;
  }

  /**
   * Why a cancel is refused for the shipment the order shares, if it does: the supplier deletes
   * no confirmed order and pays a shipment only whole, so one sibling's payment pays this one.
   */
  get shipmentRefusal(): string | undefined {
    const shared = this.shipment;
    if (shared === undefined || this.paid) return undefined;
    if (shared.siblings === undefined) {
      return (
        `it is confirmed into shipment ${shared.id} by its checkout batch, which the supplier ` +
        'pays only whole (confirmed orders cannot be deleted; an unpaid parent order lapses)'
      );
    }
    if (shared.siblings.length === 0) return undefined;
    const n = shared.siblings.length;
    return (
      `it is confirmed into shipment ${shared.id}, which the supplier pays only whole, with its ` +
      `${n} other order${n === 1 ? '' : 's'} (confirmed orders cannot be deleted; an unpaid ` +
      'parent order lapses): let the shipment be paid, then open a dispute'
    );
  }

  approvalAsked(): void {
    this.approvalAwaited = true;
    // Approving ends the wait in AWAITING_PAYMENT, whichever stage the order came from.
    this.workingStage = Stage.AWAITING_PAYMENT;
    this.enter(Stage.AWAITING_APPROVAL, 'the payment waits for approval');
  }

  approvalGiven(): void {
    this.approvalAwaited = false;
    this.approvalDone = true;
    if (this.stage === Stage.AWAITING_PAYMENT) this.note('payment approved');
    else this.enter(Stage.AWAITING_PAYMENT, 'payment approved');
  }

  /** Whether the payment policy is satisfied already (approved, or it needed no approval). */
  get paymentApproved(): boolean {
    return this.approvalDone;
  }

  /** The payment policy asks for no approval of this order. */
  approvalNotNeeded(): void {
    this.approvalDone = true;
  }

  /** Whether the order waits for approvePayment. */
  get awaitingApproval(): boolean {
    return this.approvalAwaited;
  }

  // ---- supplier news --------------------------------------------------------------------------

  /** Applies a webhook or sweep message once; returns false for a duplicate. */
  hear(news: SupplierNews): boolean {
    if (this.seen.includes(news.messageId)) return false;
    this.seen.push(news.messageId);
    if (this.seen.length > SEEN_LIMIT) this.seen.shift();
    const { messageId: _id, kind, ...facts } = news;
    for (const [k, v] of Object.entries(facts) as [string, unknown][]) {
      if (v !== undefined) (this.news as Record<string, unknown>)[k] = v;
    }
    if (kind === 'connected') this.news.connected = true;
    if (news.dispute) {
      this.status.dispute = news.dispute;
      this.note(
        `dispute ${news.dispute.disputeId ?? news.dispute.businessDisputeId}: ${news.dispute.stage}`,
      );
    }
    if (kind === 'makeup' && facts.makeupStatus === MakeupStatus.Paid) this.news.toppedUp = true;
    this.newsVersion += 1;
    return true;
  }

  /** Forgets an earlier top-up: the next one is news. */
  awaitTopUp(): void {
    this.news.toppedUp = false;
  }

  // ---- the account's checkout -----------------------------------------------------------------

  /** What the checkout coordinator said, kept in arrival order. */
  checkoutHeard(outcome: CheckoutOutcome): void {
    if (this.alone && outcome.kind === 'paid') {
      // A sibling paid a shipment: this order's only if it is the one it was confirmed into.
      if (outcome.shipmentOrderId === this.status.shipmentOrderId) this.siblingPaid ??= outcome;
      return;
    }
    this.checkoutInbox.push(outcome);
  }

  hasCheckoutNews(): boolean {
    return this.checkoutInbox.length > 0;
  }

  nextCheckoutNews(): CheckoutOutcome | undefined {
    return this.checkoutInbox.shift();
  }

  /** Paid with its batch: carted, confirmed into the batch's shipment, parent order, paid. */
  paidInBatch(shipmentOrderId: string, payId: string, batchId: string, note?: string): void {
    this.cartIsConfirmed = true;
    this.status.shipmentOrderId = shipmentOrderId;
    this.status.payId = payId;
    // The batch's steps, on the timeline only: the stage moves once (one upsert).
    const at = new Date().toISOString();
    const via = `with checkout batch ${batchId}`;
    for (const stage of [Stage.IN_CART, Stage.CONFIRMED, Stage.AWAITING_PAYMENT]) {
      this.status.timeline.push({ stage, at, note: via });
    }
    this.paymentMade(note);
  }

  /**
   * The coordinator confirmed the order into a shipment before handing it back. `siblings`: the
   * other orders of the shipment, when the coordinator said (a batch's shipment counts as shared
   * until it does); left out by orders started before shared shipments were known.
   */
  confirmedInBatch(
    shipmentOrderId: string,
    shared?: { siblings: readonly string[] | undefined },
  ): void {
    this.cartIsConfirmed = true;
    this.status.shipmentOrderId = shipmentOrderId;
    if (shared !== undefined) this.shipment = { id: shipmentOrderId, siblings: shared.siblings };
  }

  /** The other orders of the shipment (none known: empty). */
  get siblings(): readonly string[] {
    return this.shipment?.siblings ?? [];
  }

  /** The order goes on by itself after its batch; a sibling's `paid` is kept from here on. */
  checkingOutAlone(): void {
    this.alone = true;
  }

  /** A sibling paid the shared shipment: the order is paid with it (never paid again). */
  paidBySibling(): boolean {
    const news = this.siblingPaid;
    if (news === undefined || this.paid) return false;
    this.cartIsConfirmed = true;
    this.status.payId = news.payId;
    this.paymentMade(news.note ?? `paid with its shipment ${news.shipmentOrderId}`);
    return true;
  }

  /** Whether a sibling's word that the shipment is paid waits to be taken. */
  get siblingPaidHeard(): boolean {
    return this.siblingPaid !== undefined && !this.paid;
  }

  /** Whether the shipment's payment was this order's own (its siblings are to be told). */
  get paidItsShipment(): boolean {
    return this.paid && this.siblingPaid === undefined;
  }

  /** A cancel waits while the coordinator is asked to let the order go. */
  holdCancel(action: PendingAction): void {
    this.heldCancel = action;
  }

  get cancelUnderWay(): boolean {
    return this.heldCancel !== undefined || this.hasAction(['cancel']);
  }

  /** The held cancel, if any: carried out now (throws CancelRequested) or refused. */
  releaseCancel(refusal?: string): void {
    const action = this.heldCancel;
    if (action === undefined) return;
    this.heldCancel = undefined;
    if (refusal !== undefined) this.answer(action, refusal, false);
    else this.cancelWith(action);
  }

  // ---- waiting for people and events ------------------------------------------------------------

  /**
   * Enters a waiting stage and waits for one of `actions` (cancel too, while the order can be
   * cancelled), for `until`, or for the timeout. Returns the action taken, or undefined when the
   * wait ended without. Only while waiting do the Updates of `actions` pass their validators; a
   * second one that arrived with the first is answered as already handled. A cancel throws
   * CancelRequested. When the wait ends with an action or `until`, the order is back at work in
   * the stage it was in before (its waitingFor and NeedsAttention cleared).
   */
  async waitAt(
    stage: Stage,
    waitingFor: string,
    actions: readonly ActionKind[],
    options: WaitOptions = {},
  ): Promise<PendingAction | undefined> {
    if (this.stage !== stage) this.enter(stage);
    this.status.waitingFor = waitingFor;
    this.show();
    if (this.needsPerson && !this.stopTold) {
      this.stopTold = true;
      this.outbox.emit(StoreEventType.OrderNeedsAttention, this.stage, stopData(this.status));
    }
    if (options.brief !== true) this.flush();
    const withCancel = this.cancellable && this.heldCancel === undefined;
    const kinds: readonly ActionKind[] = withCancel ? [...actions, 'cancel'] : actions;
    const wake = () => this.hasAction(kinds) || (options.until?.() ?? false);
    for (const kind of actions) this.accepting.add(kind);
    const wait = async () =>
      options.timeout === undefined
        ? (await condition(wake), true)
        : condition(wake, options.timeout);
    let woken: boolean;
    try {
      if (options.brief === true && options.flushAfter !== undefined) {
        woken = await condition(wake, options.flushAfter);
        if (!woken) {
          // No longer brief: visibility shows the stage the status shows.
          this.flush();
          woken = await wait();
        }
      } else {
        woken = await wait();
      }
    } finally {
      for (const kind of actions) this.accepting.delete(kind);
    }
    if (withCancel && options.cancelReturns !== true) this.checkCancel();
    const action = this.take(withCancel && options.cancelReturns === true ? kinds : actions);
    this.refuseWaiting('already handled by an earlier request', actions);
    if (woken) this.waitEnded(action?.kind);
    return action;
  }

  /**
   * A step cannot go on by itself: stop at NEEDS_ATTENTION with the step, the supplier's code,
   * message and requestId until an operator resumes (the caller then goes on with the step) or
   * cancels — or, with `until`, until the cause went away by itself (the caller goes on too).
   */
  async needsAttention(
    info: FailureInfo,
    remedy?: string,
    options: AttentionOptions = {},
  ): Promise<void> {
    this.enter(Stage.NEEDS_ATTENTION);
    this.failed(info);
    for (;;) {
      // Before the supplier has the order, what stops it may be in the order itself.
      const amendable = this.amendable;
      const action = await this.waitAt(
        Stage.NEEDS_ATTENTION,
        amendable
          ? amendRemedy(info, remedy)
          : (remedy ?? `resume after the cause of ${info.step} is fixed, or cancel`),
        amendable ? ['resume', 'amend'] : ['resume'],
        options.until === undefined ? {} : { until: options.until },
      );
      if (!action) {
        if (options.until?.() === true) return;
        continue;
      }
      if (action.kind === 'amend') {
        const fields = this.amended(action);
        if (fields === undefined) {
          // Answered as refused; the stop goes on as it was.
          this.enter(Stage.NEEDS_ATTENTION);
          this.failed(info);
          continue;
        }
        this.answer(action, `amended ${fields.join(', ')}; going on with ${info.step}`);
        return;
      }
      this.answer(action, `going on with ${info.step}`);
      return;
    }
  }

  // ---- operator actions -----------------------------------------------------------------------

  /** Queues an action from an Update and resolves when the workflow has applied it. */
  async request(kind: ActionKind, input: unknown): Promise<ActionResult> {
    const action: PendingAction = { id: this.nextActionId++, kind, input };
    this.actions.push(action);
    await condition(() => action.result !== undefined);
    return action.result!;
  }

  /** Whether an action of one of these kinds is waiting. */
  hasAction(kinds: readonly ActionKind[]): boolean {
    return this.actions.some((a) => kinds.includes(a.kind));
  }

  /** Takes the oldest waiting action of these kinds. */
  take(kinds: readonly ActionKind[]): PendingAction | undefined {
    const i = this.actions.findIndex((a) => kinds.includes(a.kind));
    return i < 0 ? undefined : this.actions.splice(i, 1)[0];
  }

  /** Answers an action's Update. */
  answer(action: PendingAction, message: string, accepted = true): void {
    action.result = { accepted, stage: this.stage, message };
  }

  /** Answers every waiting action of these kinds (all when none given) as not carried out. */
  refuseWaiting(why: string, kinds?: readonly ActionKind[]): void {
    for (let a = this.take(kinds ?? ALL_ACTIONS); a; a = this.take(kinds ?? ALL_ACTIONS)) {
      this.answer(a, why, false);
    }
  }

  /** Cancels now if an operator asked to and the order still can be (checked between steps). */
  checkCancel(): void {
    const cancel = this.take(['cancel']);
    if (cancel) this.cancelWith(cancel);
  }

  private cancelWith(cancel: PendingAction): void {
    if (!this.cancellable) {
      const shared = this.shipmentRefusal;
      const why =
        shared === undefined
          ? 'a payment is under way or made; open a dispute instead'
          : `cancel refused: ${shared}`;
      this.answer(cancel, why, false);
      return;
    }
    const reason =
      (cancel.input as { reason?: string } | undefined)?.reason ?? 'cancelled by operator';
    this.pendingCancel = cancel;
    throw new CancelRequested(reason);
  }
}

/** The step whose unknown outcome is a payment in doubt. */
export const PAYMENT_STEP = 'payBalanceV2';
/** The supplier step that creates the order. */
export const CREATE_STEP = 'createOrderV3';

/**
 * What moves an order on that stopped before the supplier has it. A parameter error (1600100) at
 * the create names the field when the supplier's message does (`Param error: field: rule; …`).
 */
function amendRemedy(info: FailureInfo, remedy: string | undefined): string {
  if (info.step === CREATE_STEP && info.code === SupplierCode.ParamError) {
    const fields = paramErrorFields(info.message);
    const named = fields.length > 0 ? ` (field ${fields.join(', ')})` : '';
    return `amend the order${named} or cancel; resume sends it again unchanged`;
  }
  return `${remedy ?? `resume after the cause of ${info.step} is fixed, or cancel`}; or amend the order`;
}
