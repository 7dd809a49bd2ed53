/**
 * Where the order's money stands and what it allows, written by this class alone: the payment
 * (none, sending, in doubt, paid), its approval, the shipment the order is confirmed into, and
 * what its account's checkout coordinator told it about them (signal `checkoutOutcome`).
 * Money moves per shipment: a checkout batch confirms many orders into one shipment that the
 * supplier pays only whole, so one order's payment pays its siblings, and none of them can be
 * cancelled once one of them may pay it. What the money does is shown (stage, timeline,
 * milestone) and told to the store through the parts its host lends it.
 */
import type { CheckoutOutcome } from '../checkout/contract.js';
import { Stage } from './contract.js';
import { StoreEventType } from '../storeEvents/contract.js';
import { Milestone } from './slaClock.js';
import type { StatusProjection } from './statusProjection.js';
import type { Deadlines } from './deadlines.js';
import type { StoreNotices } from './storeNotices.js';

/** The parts that show and tell what the money did. */
export interface PaymentHost {
  readonly view: Pick<
    StatusProjection,
    'status' | 'stage' | 'enter' | 'note' | 'record' | 'passedThrough' | 'returnsTo'
  >;
  readonly deadlines: Pick<Deadlines, 'reached'>;
  readonly notices: Pick<StoreNotices, 'once'>;
}

/**
 * Only `none` lets an order be cancelled: from the moment a payment is sent until the supplier
 * shows it paid or proves it unpaid, nothing a payment would forbid is allowed.
 */
type Payment = 'none' | 'sending' | 'unknown' | 'paid';

export type PaidOutcome = Extract<CheckoutOutcome, { kind: 'paid' }>;

export class PaymentRules {
  constructor(private readonly o: PaymentHost) {}

  private payment: Payment = 'none';
  private cartIsConfirmed = false;
  private approvalAwaited = false;
  private approvalDone = false;
  /** The batch's shipment the order was confirmed into, and the other orders in it. */
  private shipment: { id: string; siblings: readonly string[] | undefined } | undefined;
  /** Checking out alone after its batch: a `paid` from a sibling settles its shipment. */
  private alone = false;
  /** A sibling's word that the shared shipment is paid. */
  private siblingPaid: PaidOutcome | undefined;
  /** The coordinator's outcomes the order has not taken yet, in arrival order. */
  private readonly outcomes: CheckoutOutcome[] = [];

  // ---- the payment ----------------------------------------------------------------------------

  /** A payment request is about to leave: from here the order cannot be cancelled. */
  sending(): void {
    if (this.payment === 'none') this.payment = 'sending';
  }

  /** The supplier refused the payment, and no earlier attempt is in doubt: nothing was paid. */
  refused(): void {
    if (this.payment === 'sending') this.payment = 'none';
  }

  /** The payment's answer was lost: in doubt until the supplier's view settles it. */
  inDoubt(): void {
    this.payment = 'unknown';
  }

  /** A payment in doubt proven not made: it is about to be sent again. */
  provenUnpaid(): void {
    if (this.payment === 'unknown') this.payment = 'sending';
  }

  /** The supplier took the money (its answer, or its own view of the order shows it). */
  made(note?: string): void {
    const { view } = this.o;
    this.payment = 'paid';
    this.o.deadlines.reached(Milestone.Paid);
    view.enter(Stage.PAID, note);
    this.o.notices.once(StoreEventType.OrderPaid, {
      ...(view.status.amounts?.orderAmount !== undefined && {
        amount: view.status.amounts.orderAmount,
      }),
      currency: 'USD',
      paidAt: new Date().toISOString(),
      ...(view.status.payId !== undefined && { payId: view.status.payId }),
    });
  }

  /** Paid with its batch: carted, confirmed into the batch's shipment, parent order, paid. */
  paidInBatch(shipmentOrderId: string, payId: string, batchId: string, note?: string): void {
    this.cartIsConfirmed = true;
    this.o.view.record({ shipmentOrderId, payId });
    // The batch's steps, on the timeline only: the stage moves once (one upsert).
    this.o.view.passedThrough(
      [Stage.IN_CART, Stage.CONFIRMED, Stage.AWAITING_PAYMENT],
      `with checkout batch ${batchId}`,
    );
    this.made(note);
  }

  /** A sibling paid the shared shipment: the order is paid with it (never paid again). */
  paidBySibling(): boolean {
    const news = this.siblingPayment;
    if (news === undefined) return false;
    this.cartIsConfirmed = true;
    this.o.view.record({ payId: news.payId });
    this.made(news.note ?? `paid with its shipment ${news.shipmentOrderId}`);
    return true;
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

  /** Why a cancel is refused, if it is. */
  get cancelRefusal(): string | undefined {
    if (this.cancellable) return undefined;
    const shared = this.shipmentRefusal;
    return shared === undefined
      ? 'a payment is under way or made; open a dispute instead'
      : `cancel refused: ${shared}`;
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

  // ---- approval -------------------------------------------------------------------------------

  approvalAsked(): void {
    this.approvalAwaited = true;
    // Approving ends the wait in AWAITING_PAYMENT, whichever stage the order came from.
    this.o.view.returnsTo(Stage.AWAITING_PAYMENT);
    this.o.view.enter(Stage.AWAITING_APPROVAL, 'the payment waits for approval');
  }

  approvalGiven(): void {
    this.approvalAwaited = false;
    this.approvalDone = true;
    if (this.o.view.stage === Stage.AWAITING_PAYMENT) this.o.view.note('payment approved');
    else this.o.view.enter(Stage.AWAITING_PAYMENT, 'payment approved');
  }

  /** The payment policy asks for no approval of this order. */
  approvalNotNeeded(): void {
    this.approvalDone = true;
  }

  /** Whether the payment policy is satisfied already (approved, or it needed no approval). */
  get approved(): boolean {
    return this.approvalDone;
  }

  /** Whether the order waits for approvePayment. */
  get awaitingApproval(): boolean {
    return this.approvalAwaited;
  }

  // ---- the shipment ---------------------------------------------------------------------------

  /** The supplier confirmed the cart into `shipmentOrderId`: the order can no longer be deleted. */
  cartConfirmed(shipmentOrderId: string, note?: string): void {
    this.cartIsConfirmed = true;
    this.o.view.record({ shipmentOrderId });
    this.o.view.enter(Stage.CONFIRMED, note);
  }

  get confirmed(): boolean {
    return this.cartIsConfirmed;
  }

  /**
   * The coordinator confirmed the order into a shipment before handing it back. `shared` names
   * the shipment's other orders, when the coordinator said (a batch's shipment counts as shared
   * until it does); left out by orders started before shared shipments were known.
   */
  confirmedInBatch(
    shipmentOrderId: string,
    shared?: { siblings: readonly string[] | undefined },
  ): void {
    this.cartIsConfirmed = true;
    if (shared !== undefined) this.shipment = { id: shipmentOrderId, siblings: shared.siblings };
    this.o.view.record({ shipmentOrderId });
  }

  /** The other orders of the shipment (none known: empty). */
  get siblings(): readonly string[] {
    return this.shipment?.siblings ?? [];
  }

  /** The order goes on by itself after its batch; a sibling's `paid` is kept from here on. */
  checkingOutAlone(): void {
    this.alone = true;
  }

  /** A sibling's word that the shipment is paid, not yet taken: the order is paid with it. */
  get siblingPayment(): PaidOutcome | undefined {
    return this.paid ? undefined : this.siblingPaid;
  }

  /** Whether the shipment's payment was this order's own (its siblings are to be told). */
  get paidItsShipment(): boolean {
    return this.paid && this.siblingPaid === undefined;
  }

  // ---- what the checkout coordinator said -----------------------------------------------------

  /**
   * The coordinator's word, kept in arrival order for the order's checkout step to take one by
   * one. A `paid` heard while the order goes on alone is a sibling's, never the order's own
   * outcome: kept if it pays the order's shipment, until the order takes it (paidBySibling).
   */
  heard(outcome: CheckoutOutcome): void {
    if (this.alone && outcome.kind === 'paid') {
      if (outcome.shipmentOrderId === this.o.view.status.shipmentOrderId) {
        this.siblingPaid ??= outcome;
      }
      return;
    }
    this.outcomes.push(outcome);
  }

  /** Whether an outcome waits to be taken. */
  get outcomeWaiting(): boolean {
    return this.outcomes.length > 0;
  }

  /** The oldest outcome not taken yet (none: undefined). */
  nextOutcome(): CheckoutOutcome | undefined {
    return this.outcomes.shift();
  }
}
