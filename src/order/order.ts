/**
 * The state of one order workflow, as one object that composes its parts, each the only writer
 * of its share (docs/architecture.md §5.4): what the order shows (statusProjection.ts: stage,
 * timeline, reasons, search attributes), where its money stands (paymentRules.ts), the operator's
 * actions, what the supplier, the checkout and the store told it, the order as amended, its
 * margin, deadlines, parcels and what it tells its store. Steps say what happened through its
 * methods or its parts; they never set its fields. A part that must move the stage or write the
 * timeline does so through the narrow host the order lends it.
 */
import { condition } from '@temporalio/workflow';
import {
  Stage,
  type ParcelView,
  type AmendInput,
  type OrderStatus,
  type Reason,
} from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import type { DisputeSummaryNews } from '../dispute/contract.js';
import { flowLabel, type AmendableField, type OrderInput } from './orderInput.js';
import type { ConnectedVariant } from '../store/intake/connectionActivities.js';
import { amendRemedy, CurrentOrder } from './currentOrder.js';
import { StoreEventType, type StoreEventsView } from '../storeEvents/contract.js';
import type { Amounts } from './activities.js';
import { MarginRecord } from './marginRecord.js';
import {
  ParcelCodes,
  SlaBreached,
  StoreEventsBehind,
  SvcOrderId,
} from '../temporal/searchAttributes.js';
import { stopData } from './storeEventData.js';
import { StoreNotices, type StoreNoticesHost } from './storeNotices.js';
import { DEFAULT_SUPPLIER_LAG_SECONDS } from '../durable/supplierStep.js';
import type { AttentionOptions, OutcomeInDoubt, StepHost } from '../durable/stepHost.js';
import {
  CancelRequested,
  OperatorActions,
  type ActionKind,
  type PendingAction,
  type WaitOptions,
} from './operatorActions.js';
import { PaymentRules } from './paymentRules.js';
import { CheckoutNews } from './checkoutNews.js';
import { StatusProjection } from './statusProjection.js';
import { StoreSide } from './storeSide.js';
import { Milestone } from './slaClock.js';
import { Deadlines } from './deadlines.js';
import { Parcels, storeParcel, wholeParcel } from './parcels.js';
import { SupplierWord } from './supplierWord.js';

export type { ActionKind, PendingAction } from './operatorActions.js';

export interface OrderOptions {
  /**
   * Search attributes are upserted once per workflow task and only when a value changes, starting
   * from those the order was started with (each upsert is a billed action).
   */
  lean?: boolean;
}

/**
 * Composes the order's parts. Its own methods say what happened where it takes more than one
 * part (a stage entered with what the store is told, the money with the timeline) and tell each.
 */
export class Order implements StepHost, StoreNoticesHost {
  /** The order's parcels once the supplier split it (steps/parcels.ts follows them). */
  readonly parcels = new Parcels((parcels, open) => {
    this.view.record({ parcels });
    if (open !== undefined) this.view.upsert([{ key: ParcelCodes, value: open }]);
  });
  /** The order's deadlines, when it keeps any (slaWatch.ts holds their timer). */
  readonly deadlines = new Deadlines(this.parcels, {
    shown: (deadlines) => {
      this.view.record({ deadlines });
    },
    late: (data, breached, note) => {
      this.note(note);
      this.view.upsert([{ key: SlaBreached, value: breached }]);
      this.flush();
      this.notices.late(data);
    },
  });
  /** What the supplier told the order: its latest facts, and which of them a push said. */
  readonly supplier = new SupplierWord(this.parcels, this);
  /** The payment's rules: who may cancel, approval, the shared shipment's payment. */
  readonly money = new PaymentRules();
  private readonly view: StatusProjection;
  /** What the account's checkout coordinator told the order, in arrival order. */
  readonly checkoutNews = new CheckoutNews(this.money, () => this.status.shipmentOrderId);
  /** Where the order stands against its margin rule (marginGuard.ts checks it). */
  readonly margin = new MarginRecord(this, (margin) => {
    this.view.record({ margin });
  });
  /** The operator actions the order waits for, queued and answered. */
  readonly actions = new OperatorActions(() => this.stage);
  /** What the order tells its store, each event through its outbox. */
  readonly notices: StoreNotices;
  /** The order as submitted, with the amendments taken since. */
  readonly current: CurrentOrder;
  /** What its store said, for an order from a store connection. */
  readonly storeSide = new StoreSide(this, () => {
    this.supplier.woken();
  });

  constructor(input: OrderInput, options: OrderOptions = {}) {
    this.current = new CurrentOrder(input, this);
    this.view = new StatusProjection(
      input,
      options.lean === true,
      () => this.money.awaitingApproval,
    );
    this.notices = new StoreNotices(input, this);
    this.enter(Stage.RECEIVED);
  }

  /** The `status` query's snapshot. */
  get status(): Readonly<OrderStatus> {
    return this.view.status;
  }

  get stage(): Stage {
    return this.view.stage;
  }

  /** The order: as submitted, with the amendments taken since. */
  get input(): OrderInput {
    return this.current.input;
  }

  // ---- what the order shows -------------------------------------------------------------------

  /** Moves to a stage: timeline, search attributes and the UI's current details follow. */
  enter(stage: Stage, note?: string): void {
    this.notices.stageEntered();
    this.view.enter(stage, note);
  }

  /** Lean mode: writes the search attributes that changed, as one upsert (see StatusProjection). */
  flush(): void {
    this.view.flush();
  }

  /** Says what the order waits for (status and UI); what it shows is written now. */
  waitFor(what: string): void {
    this.view.waitingFor(what);
    this.flush();
  }

  /** A wait ended with the thing it waited for: the order is at work again where it was. */
  waitEnded(note?: string): void {
    if (this.stage !== this.view.atWorkIn) this.enter(this.view.atWorkIn, note);
    else this.doneWaiting();
  }

  doneWaiting(): void {
    this.view.doneWaiting();
  }

  /** Records a note on the timeline without changing stage. */
  note(note: string): void {
    this.view.note(note);
  }

  /** A step stopped: why, for the operator (cleared when the order moves on). */
  failed(info: FailureInfo): void {
    this.view.failed(info);
  }

  /** Where a dispute about the order stands, as its disputeOrder workflow said. */
  disputeShown(dispute: DisputeSummaryNews): void {
    this.view.record({ dispute });
  }

  intercepted(step: string, reasons: Reason[]): void {
    this.view.intercepted(step, reasons);
  }

  // ---- what the supplier did ------------------------------------------------------------------

  created(svcOrderId: string, amounts: Amounts | undefined, note?: string): void {
    this.view.record({ svcOrderId, atSupplier: true, amounts });
    this.view.upsert([{ key: SvcOrderId, value: svcOrderId }]);
    this.enter(Stage.CREATED, note);
    this.notices.created({ svcOrderId, amounts: { ...this.status.amounts, currency: 'USD' } });
  }

  createdUnconnected(amounts: Amounts): void {
    this.view.record({ amounts, atSupplier: true });
  }

  /** Flow C: the supplier answered that it holds the order already (unconnected, so unseen). */
  heldUnconnected(): void {
    this.view.record({ atSupplier: true });
  }

  // ---- amending the order before the supplier has it -------------------------------------------

  /**
   * Takes an amend action: the order's body becomes the amended one (checked again), its later
   * create carries the changes, and the timeline names the changed fields (never their values).
   * Returns the changed fields, or undefined when the changes no longer make a valid order (the
   * action is then answered as refused).
   */
  amended(action: PendingAction): AmendableField[] | undefined {
    const { order: changes, by } = (action.input ?? {}) as AmendInput;
    const result = this.current.amend(changes);
    if (!result.ok) {
      const issues = result.issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
      this.actions.answer(action, `amend refused: ${issues}`, false);
      return undefined;
    }
    const after = result.input.order as Record<string, unknown>;
    if (result.fields.includes('logisticName') && after['logisticName'] !== undefined) {
      this.view.record({ logisticName: after['logisticName'] as string });
    }
    this.note(`amended: ${result.fields.join(', ')}${by !== undefined ? ` (by ${by})` : ''}`);
    return result.fields;
  }

  /** Every store line is connected at the supplier: the order is created in the store flow. */
  storeFlowChosen(connected: ReadonlyMap<string, ConnectedVariant>): void {
    this.current.storeFlowChosen(connected);
    this.view.flowChanged(flowLabel(this.input.fulfillment));
  }

  /** The supplier deleted the order so that it can be created again as amended. */
  deletedToAmend(svcOrderId: string): void {
    this.view.supplierOrderDeleted();
    this.enter(Stage.RECEIVED, `deleted ${svcOrderId} at the supplier to create it again amended`);
  }

  logisticsChosen(logisticName: string): void {
    this.view.record({ logisticName });
  }

  cartConfirmed(shipmentOrderId: string, note?: string): void {
    this.money.cartConfirmed();
    this.view.record({ shipmentOrderId });
    this.enter(Stage.CONFIRMED, note);
  }

  parentOrderGenerated(payId: string): void {
    this.view.record({ payId });
  }

  /** A used-up daily quota stops the order, saying so, until it resets. */
  readonly quotaStops = true;

  get supplierLagMs(): number {
    return (this.input.fulfillment.supplierLagSeconds ?? DEFAULT_SUPPLIER_LAG_SECONDS) * 1_000;
  }

  unknownOutcome(): OutcomeInDoubt | undefined {
    return this.view.unknownOutcome;
  }

  /** A call that may have acted lost its answer; until settled, it is not sent again. */
  outcomeUnknown(step: string): void {
    if (step === PAYMENT_STEP) this.money.inDoubt();
    this.view.outcomeUnknown(step);
  }

  /** The truth about an unknown outcome is established: `done`, or proven not done. */
  outcomeSettled(done: boolean): void {
    if (!done && this.view.unknownOutcome?.step === PAYMENT_STEP) this.money.provenUnpaid();
    this.view.outcomeSettled();
  }

  /** The tracking the supplier told us, in the status. */
  trackingHeard(): void {
    const n = this.supplier.news;
    this.view.record({
      trackNumber: n.trackNumber,
      trackingUrl: n.trackingUrl,
      trackingEvents: n.trackingEvents,
      logisticName: n.logisticName,
    });
    if (this.status.trackNumber !== undefined) this.deadlines.reached(Milestone.Shipped);
    if ((this.status.trackingEvents?.length ?? 0) > 0) this.deadlines.reached(Milestone.FirstScan);
    // A tracking number that changed after shipping is told again.
    if (this.notices.retracked(this.status.trackNumber)) this.tellShipped();
  }

  shipped(): void {
    this.deadlines.reached(Milestone.Shipped);
    this.enter(Stage.SHIPPED);
    if (!this.notices.shippedTold) this.tellShipped();
  }

  private tellShipped(): void {
    const s = this.status;
    this.notices.shipped({
      parcel: storeParcel(this.whole(), this.carrier()),
      ...(s.trackNumber !== undefined && { trackNumber: s.trackNumber }),
      ...(s.trackingUrl !== undefined && { trackingUrl: s.trackingUrl }),
      ...(s.logisticName !== undefined && { logisticName: s.logisticName }),
      ...(this.carrier() !== undefined && { carrier: this.carrier() }),
    });
  }

  /** Delivered: the order's one parcel, or (split) the last of its parcels delivered or cancelled. */
  delivered(): void {
    this.deadlines.reached(Milestone.Delivered);
    this.enter(Stage.DELIVERED);
    const p = this.parcels;
    const delivered = p.split ? p.delivered : [this.whole()];
    const trackNumber = delivered.at(-1)?.trackNumber;
    this.notices.once(StoreEventType.OrderDelivered, {
      deliveredAt: new Date().toISOString(),
      ...(trackNumber !== undefined && { trackNumber }),
      parcels: delivered.map((d) => storeParcel(d, this.carrier())),
      ...(p.cancelled.length > 0 && { cancelledParcels: p.cancelled.map((c) => storeParcel(c)) }),
    });
  }

  /** A parcel left: the order is SHIPPED with its first (milestone and stage only). */
  parcelShipped(): void {
    this.deadlines.reached(Milestone.Shipped);
    if (this.stage === Stage.AWAITING_SHIPMENT) this.enter(Stage.SHIPPED);
  }

  proofOfDeliveryReceived(urls: string[]): void {
    this.view.record({ proofOfDelivery: urls });
    this.enter(Stage.COMPLETED, 'proof of delivery received');
    this.notices.once(StoreEventType.OrderCompleted, { proofOfDelivery: urls });
  }

  /** Delivered, and the supplier had no proof of delivery within the wait. */
  completedWithoutProof(why: string): void {
    this.enter(Stage.COMPLETED, why);
    this.notices.once(StoreEventType.OrderCompleted, { proofOfDelivery: [], noProofReason: why });
  }

  /** Cancelled here (an operator) or by the supplier. */
  cancelled(reason: string, by: 'operator' | 'supplier'): void {
    this.enter(Stage.CANCELLED, reason);
    this.notices.once(StoreEventType.OrderCancelled, { reason, by });
  }

  /** The order as its one parcel: the supplier's order id, all its lines, its tracking. */
  whole(): ParcelView {
    return wholeParcel(this.status, this.input.order.products);
  }

  /** The waybill's carrier (platform logistics), else the logistics line. */
  private carrier(): string | undefined {
    return this.input.fulfillment.waybill?.carrier ?? this.status.logisticName;
  }

  // ---- the store ------------------------------------------------------------------------------

  storeEventsChanged(view: StoreEventsView): void {
    this.view.record({ storeEvents: view });
    this.view.show();
  }

  storeEventsBehind(behind: boolean): void {
    this.view.upsert([{ key: StoreEventsBehind, value: behind }]);
    this.flush();
  }

  // ---- money ----------------------------------------------------------------------------------

  /** The supplier took the money (its answer, or its own view of the order shows it). */
  paymentMade(note?: string): void {
    this.money.made();
    this.deadlines.reached(Milestone.Paid);
    this.enter(Stage.PAID, note);
    this.notices.once(StoreEventType.OrderPaid, {
      ...(this.status.amounts?.orderAmount !== undefined && {
        amount: this.status.amounts.orderAmount,
      }),
      currency: 'USD',
      paidAt: new Date().toISOString(),
      ...(this.status.payId !== undefined && { payId: this.status.payId }),
    });
  }

  approvalAsked(): void {
    this.money.approvalAsked();
    // Approving ends the wait in AWAITING_PAYMENT, whichever stage the order came from.
    this.view.returnsTo(Stage.AWAITING_PAYMENT);
    this.enter(Stage.AWAITING_APPROVAL, 'the payment waits for approval');
  }

  approvalGiven(): void {
    this.money.approvalGiven();
    if (this.stage === Stage.AWAITING_PAYMENT) this.note('payment approved');
    else this.enter(Stage.AWAITING_PAYMENT, 'payment approved');
  }

  // ---- the account's checkout -----------------------------------------------------------------

  /** Paid with its batch: carted, confirmed into the batch's shipment, parent order, paid. */
  paidInBatch(shipmentOrderId: string, payId: string, batchId: string, note?: string): void {
    this.money.cartConfirmed();
    this.view.record({ shipmentOrderId, payId });
    // The batch's steps, on the timeline only: the stage moves once (one upsert).
    this.view.passedThrough(
      [Stage.IN_CART, Stage.CONFIRMED, Stage.AWAITING_PAYMENT],
      `with checkout batch ${batchId}`,
    );
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
    this.money.confirmedInBatch(shipmentOrderId, shared);
    this.view.record({ shipmentOrderId });
  }

  /** A sibling paid the shared shipment: the order is paid with it (never paid again). */
  paidBySibling(): boolean {
    const news = this.money.siblingPayment;
    if (news === undefined) return false;
    this.money.cartConfirmed();
    this.view.record({ payId: news.payId });
    this.paymentMade(news.note ?? `paid with its shipment ${news.shipmentOrderId}`);
    return true;
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
    this.view.waitingFor(waitingFor);
    this.storeSide.passCancel();
    if (this.view.needsPerson) this.notices.stopped(() => stopData(this.status));
    if (options.brief !== true) this.flush();
    const withCancel = this.money.cancellable && !this.actions.holdsCancel;
    const kinds: readonly ActionKind[] = withCancel ? [...actions, 'cancel'] : actions;
    const wake = () => this.actions.has(kinds) || (options.until?.() ?? false);
    this.actions.accept(actions);
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
      this.actions.acceptNoMore(actions);
    }
    if (withCancel && options.cancelReturns !== true) this.checkCancel();
    const action = this.actions.take(
      withCancel && options.cancelReturns === true ? kinds : actions,
    );
    this.actions.refuseWaiting('already handled by an earlier request', actions);
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
      const amendable = this.current.amendable;
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
        this.actions.answer(action, `amended ${fields.join(', ')}; going on with ${info.step}`);
        return;
      }
      this.actions.answer(action, `going on with ${info.step}`);
      return;
    }
  }

  // ---- operator actions -----------------------------------------------------------------------

  /** The held cancel, if any: carried out now (throws CancelRequested) or refused. */
  releaseCancel(refusal?: string): void {
    const action = this.actions.unholdCancel();
    if (action === undefined) return;
    if (refusal !== undefined) this.actions.answer(action, refusal, false);
    else this.cancelWith(action);
  }

  /** Cancels now if an operator asked to and the order still can be (checked between steps). */
  checkCancel(): void {
    this.storeSide.passCancel();
    const cancel = this.actions.take(['cancel']);
    if (cancel) this.cancelWith(cancel);
  }

  /** Carries a cancel out (throws CancelRequested), or answers why the money forbids it. */
  private cancelWith(cancel: PendingAction): void {
    const refusal = this.money.cancelRefusal;
    if (refusal !== undefined) {
      this.actions.answer(cancel, refusal, false);
      return;
    }
    const reason =
      (cancel.input as { reason?: string } | undefined)?.reason ?? 'cancelled by operator';
    this.actions.cancelTaken(cancel);
    throw new CancelRequested(reason);
  }
}

/** The step whose unknown outcome is a payment in doubt. */
export const PAYMENT_STEP = 'payBalanceV2';
