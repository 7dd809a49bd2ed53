/**
 * The state of one order workflow, as one explicit object: the status snapshot (the `status`
 * query), the search attributes and current details that mirror it, what the supplier has told us,
 * and the operator actions waiting to be applied.
 */
import { condition, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type {
  ActionResult,
  OrderStatus,
  SupplierNews,
  TimelineEntry,
} from '../../order/contract.js';
import type { OrderInput } from '../../order/orderInput.js';
import {
  flowLabel,
  FulfillmentFlow,
  FulfillmentStage,
  NeedsAttention,
  OrderNumber,
  Stage,
  SvcOrderId,
  WAITING_STAGES,
} from '../common/contracts.js';
// The UI's details are not part of history: the old runs share today's rendering.
import { renderDetails } from './details.js';

export type ActionKind =
  'resume' | 'changeLogistics' | 'approvePayment' | 'provideWaybill' | 'cancel';

const ALL_ACTIONS: readonly ActionKind[] = [
  'resume',
  'changeLogistics',
  'approvePayment',
  'provideWaybill',
  'cancel',
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

/** How many webhook message ids are remembered for deduplication. */
const SEEN_LIMIT = 1_000;

/**
 * The order state of runs started before `reconciling-steps-2026-11`, frozen with them; today's
 * is `Order` in src/order/order.ts. Named apart so that a search for one never lands on the other.
 */
export class FrozenOrderV1 {
  readonly status: OrderStatus;
  /** Payment went through. */
  paid = false;
  /**
   * A payment request is out, or its outcome is unknown: from here on the order can no longer be
   * cancelled (a dispute can be opened instead). False again after the supplier refused it.
   */
  mayHavePaid = false;
  /** The operator actions the workflow waits for right now; validators refuse the others. */
  readonly accepting = new Set<ActionKind>();
  /** The supplier confirmed the cart (addCartConfirm): the order can no longer be deleted. */
  confirmed = false;
  /** Waiting for approvePayment. */
  awaitingApproval = false;
  /** The latest word from the supplier, merged from webhooks and sweeps. */
  readonly news: Omit<SupplierNews, 'messageId' | 'kind'> & {
    connected?: boolean;
    toppedUp?: boolean;
  } = {};
  /** Grows with every new message, so waits can tell that something arrived. */
  newsVersion = 0;
  private readonly seen: string[] = [];
  private readonly actions: PendingAction[] = [];
  private nextActionId = 1;

  constructor(readonly input: OrderInput) {
    this.status = {
      orderNumber: input.order.orderNumber,
      flow: flowLabel(input.fulfillment),
      stage: Stage.RECEIVED,
      timeline: [],
    };
    this.enter(Stage.RECEIVED);
  }

  get stage(): Stage {
    return this.status.stage;
  }

  /** Moves to a stage: timeline, search attributes and the UI's current details follow. */
  enter(stage: Stage, note?: string): void {
    // Reasons and errors describe the stop; moving on clears them.
    if (!WAITING_STAGES.includes(stage)) {
      delete this.status.interception;
      delete this.status.error;
    }
    delete this.status.waitingFor;
    this.status.stage = stage;
    const entry: TimelineEntry = {
      stage,
      at: new Date().toISOString(),
      ...(note !== undefined && { note }),
    };
    this.status.timeline.push(entry);
    upsertSearchAttributes([
      { key: FulfillmentStage, value: stage },
      { key: OrderNumber, value: this.status.orderNumber },
      { key: FulfillmentFlow, value: this.status.flow },
      { key: NeedsAttention, value: WAITING_STAGES.includes(stage) || this.awaitingApproval },
    ]);
    setCurrentDetails(renderDetails(this.status));
  }

  /** Says what the order waits for (status and UI). */
  waitFor(what: string): void {
    this.status.waitingFor = what;
    setCurrentDetails(renderDetails(this.status));
  }

  /** Records a note on the timeline without changing stage. */
  note(note: string): void {
    this.status.timeline.push({ stage: this.stage, at: new Date().toISOString(), note });
    setCurrentDetails(renderDetails(this.status));
  }

  setSvcOrderId(svcOrderId: string): void {
    this.status.svcOrderId = svcOrderId;
    upsertSearchAttributes([{ key: SvcOrderId, value: svcOrderId }]);
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
    if (kind === 'makeup' && facts.makeupStatus === 'PAID') this.news.toppedUp = true;
    this.newsVersion += 1;
    return true;
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

  /** Whether the order can still be cancelled (nothing paid, no payment under way). */
  get cancellable(): boolean {
    return !this.paid && !this.mayHavePaid;
  }

  /** Cancels now if an operator asked to (checked between steps). */
  checkCancel(): void {
    const cancel = this.take(['cancel']);
    if (!cancel) return;
    const reason =
      (cancel.input as { reason?: string } | undefined)?.reason ?? 'cancelled by operator';
    this.pendingCancel = cancel;
    throw new CancelRequested(reason);
  }

  /** The cancel action being carried out, answered once the order is CANCELLED. */
  pendingCancel: PendingAction | undefined;
}
