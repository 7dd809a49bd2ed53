/**
 * The state of one dispute workflow of this set, as one object and its only writer:
 * dispute/disputeCase.ts as it was on 2026-11-28, less what only later runs use (matching
 * the created dispute, continue-as-new).
 */
import {
  condition,
  getExternalWorkflowHandle,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ActionResult, CancelInput, DisputeOutcome } from '../../order/contract.js';
import type { DisputeStage, StoreEventsView } from '../../storeEvents/contract.js';
import type { DisputeInput, DisputeStatus } from '../../dispute/contract.js';
import type { FailureInfo } from '../../supplier/failureDetails.js';
import type { AttentionOptions, OutcomeInDoubt, StepHost } from '../../durable/stepHost.js';
import { workflowAccount } from '../common/account.js';
import { storeEventDelivery } from '../common/activityProxies.js';
import { orderWorkflowId, StoreEventsBehind, supplierEventSignal } from '../common/contracts.js';
import { failureText } from '../common/supplier.js';
import { StoreEventOutbox, type OutboxHost } from './outbox.js';

/** Thrown inside the workflow to leave the steps for the cancel path; caught at the top. */
export class DisputeCancelled extends Error {
  constructor() {
    super('the dispute was cancelled');
  }
}

type DisputeAction = 'resume' | 'cancel';

interface PendingAction {
  kind: DisputeAction;
  input: unknown;
  result?: ActionResult;
}

/** The supplier's dispute list is read directly; it should not trail by much. */
const DISPUTE_LAG_MS = 60_000;

export class DisputeCase implements StepHost, OutboxHost {
  readonly status: DisputeStatus;
  readonly supplierLagMs = DISPUTE_LAG_MS;
  /** A used-up daily quota stops the dispute, saying so, until it resets. */
  readonly quotaStops = true;
  private createSent = false;
  /** On the cancel path: a cancel no longer interrupts, and a stop waits for resume only. */
  private finishing = false;
  private workingStage: DisputeStage = 'OPENING';
  private readonly actions: PendingAction[] = [];
  private readonly outbox: StoreEventOutbox;

  constructor(readonly input: DisputeInput) {
    this.status = {
      orderNumber: input.orderNumber,
      businessDisputeId: input.businessDisputeId,
      ...(input.parcel !== undefined && { parcel: input.parcel }),
      stage: 'OPENING',
      timeline: [],
    };
    this.outbox = new StoreEventOutbox(input.orderNumber, storeEventDelivery(), this);
  }

  get stage(): DisputeStage {
    return this.status.stage;
  }

  async enter(stage: DisputeStage, note?: string): Promise<void> {
    if (stage !== 'NEEDS_ATTENTION') {
      delete this.status.error;
      this.workingStage = stage;
    }
    delete this.status.waitingFor;
    this.status.stage = stage;
    this.status.timeline.push({
      stage,
      at: new Date().toISOString(),
      ...(note !== undefined && { note }),
    });
    this.show();
    this.tellStore(note);
    await this.tellOrder();
  }

  // ---- the store ------------------------------------------------------------------------------

  private tellStore(note: string | undefined): void {
    const s = this.status;
    const money = s.outcome?.money;
    const reason = s.stage === 'NEEDS_ATTENTION' ? s.error?.message : note;
    this.outbox.emit('dispute.updated', s.stage, {
      businessDisputeId: s.businessDisputeId,
      status: s.stage,
      ...(s.disputeId !== undefined && { disputeId: s.disputeId }),
      ...(s.parcel !== undefined && { parcel: s.parcel }),
      ...(s.outcome !== undefined && { outcome: s.outcome.result }),
      ...(money !== undefined && { money, currency: 'USD' as const }),
      ...(s.outcome?.resendOrderCode !== undefined && {
        resendOrderCode: s.outcome.resendOrderCode,
      }),
      ...(reason !== undefined && { reason }),
    });
  }

  storeEventsChanged(view: StoreEventsView): void {
    this.status.storeEvents = view;
    this.show();
  }

  storeEventsBehind(behind: boolean): void {
    upsertSearchAttributes([{ key: StoreEventsBehind, value: behind }]);
  }

  /** At the end: the dispute's events reach the store. */
  async storeEventsDelivered(): Promise<void> {
    if (this.outbox.delivering) await this.outbox.allDelivered();
  }

  /** createDispute is on its way: from here a dispute may exist that status.disputeId lacks. */
  creating(): void {
    this.createSent = true;
  }

  /** Whether the supplier may hold a dispute of this request (known or not). */
  get mayHaveDispute(): boolean {
    return this.status.disputeId !== undefined || this.createSent;
  }

  /** For ./v2 only: it adopted ids without matching them. */
  opened(disputeId: string | undefined, reason?: string, amount?: number): void {
    if (disputeId !== undefined) this.status.disputeId = disputeId;
    if (reason !== undefined) this.status.reason = reason;
    if (amount !== undefined) this.status.amount = amount;
  }

  settled(outcome: DisputeOutcome | undefined): void {
    if (outcome !== undefined) this.status.outcome = outcome;
  }

  // ---- the supplier step's host ---------------------------------------------------------------

  checkCancel(): void {
    if (!this.finishing && this.cancelAsked()) throw new DisputeCancelled();
  }

  unknownOutcome(): OutcomeInDoubt | undefined {
    return this.status.outcomeUnknown;
  }

  outcomeUnknown(step: string): void {
    this.status.outcomeUnknown ??= { step, since: new Date().toISOString() };
    this.show();
  }

  outcomeSettled(_done: boolean): void {
    delete this.status.outcomeUnknown;
    this.show();
  }

  note(text: string): void {
    this.status.timeline.push({ stage: this.stage, at: new Date().toISOString(), note: text });
    this.show();
  }

  waitFor(what: string): void {
    this.status.waitingFor = what;
    this.show();
  }

  doneWaiting(): void {
    delete this.status.waitingFor;
    this.show();
  }

  /**
   * Stops at NEEDS_ATTENTION until resumed (or, before the cancel path, cancelled), or until
   * `until` holds: the cause went away by itself.
   */
  async needsAttention(
    info: FailureInfo,
    remedy?: string,
    options: AttentionOptions = {},
  ): Promise<void> {
    this.status.error = info;
    await this.enter('NEEDS_ATTENTION');
    this.waitFor(remedy ?? `resume after the cause of ${info.step} is fixed, or cancel`);
    const byItself = () => options.until?.() === true;
    await condition(
      () => this.has('resume') || byItself() || (!this.finishing && this.cancelAsked()),
    );
    this.checkCancel();
    const resume = this.take('resume');
    if (resume === undefined) {
      await this.enter(this.workingStage, `going on with ${info.step} by itself`);
      return;
    }
    await this.enter(this.workingStage, `resumed at ${info.step}`);
    this.answer(resume, `going on with ${info.step}`);
  }

  // ---- operator actions -----------------------------------------------------------------------

  /** Queues an action from an Update and resolves once the workflow has applied it. */
  async request(kind: DisputeAction, input: unknown): Promise<ActionResult> {
    const action: PendingAction = { kind, input };
    this.actions.push(action);
    await condition(() => action.result !== undefined);
    return action.result!;
  }

  /** Whether resume is awaited now (its validator's question). */
  get acceptsResume(): boolean {
    return this.stage === 'NEEDS_ATTENTION' && !this.has('resume');
  }

  cancelAsked(): boolean {
    return this.has('cancel');
  }

  cancelReason(): string {
    const first = this.actions.find((a) => a.kind === 'cancel');
    return (first?.input as CancelInput | undefined)?.reason ?? 'cancelled by operator';
  }

  /** From here on a cancel is being carried out. */
  startFinishing(): void {
    this.finishing = true;
  }

  /** Answers every unanswered action of `kind` (all when left out). */
  answerAll(message: string, accepted: boolean, kind?: DisputeAction): void {
    const open = this.actions.filter(
      (x) => x.result === undefined && (kind === undefined || x.kind === kind),
    );
    for (const a of open) {
      this.answer(a, message, accepted);
    }
  }

  private has(kind: DisputeAction): boolean {
    return this.actions.some((a) => a.kind === kind && a.result === undefined);
  }

  private take(kind: DisputeAction): PendingAction | undefined {
    return this.actions.find((a) => a.kind === kind && a.result === undefined);
  }

  private answer(action: PendingAction, message: string, accepted = true): void {
    action.result = { accepted, stage: this.stage, message };
  }

  private show(): void {
    const s = this.status;
    setCurrentDetails(
      [
        `**${s.stage}** — dispute ${s.disputeId ?? s.businessDisputeId} of order ${s.orderNumber}` +
          (s.parcel !== undefined ? `, parcel ${s.parcel}` : ''),
        ...(s.outcome
          ? [
              `outcome: ${s.outcome.result}${s.outcome.money !== undefined ? ` ${s.outcome.money} USD` : ''}`,
            ]
          : []),
        ...(s.error ? [`error at ${failureText(s.error)}`] : []),
        ...(s.waitingFor ? [`waiting for: ${s.waitingFor}`] : []),
        ...[storeEventsBehind(s.storeEvents)].filter((line) => line !== undefined),
      ].join('\n\n'),
    );
  }

  /** Tells the order's workflow, if it is still open; a closed one has nothing to hear. */
  private async tellOrder(): Promise<void> {
    const s = this.status;
    try {
      const order = getExternalWorkflowHandle(orderWorkflowId(s.orderNumber, workflowAccount()));
      await order.signal(supplierEventSignal, {
        messageId: `dispute:${s.businessDisputeId}:${s.stage}:${s.timeline.length}`,
        kind: 'dispute',
        dispute: {
          businessDisputeId: s.businessDisputeId,
          stage: s.stage,
          ...(s.disputeId !== undefined && { disputeId: s.disputeId }),
          ...(s.parcel !== undefined && { parcel: s.parcel }),
          ...(s.outcome !== undefined && { outcome: s.outcome }),
        },
      });
    } catch {
      // The order's workflow has finished (or never ran here).
    }
  }
}

/** The store's backlog, once an attempt failed: what waits, the last answer, the next try. */
function storeEventsBehind(v: StoreEventsView | undefined): string | undefined {
  const oldest = v?.waiting[0];
  if (v === undefined || oldest === undefined || v.attempts === 0) return undefined;
  return (
    `store events: ${v.waiting.length} not delivered, oldest ${oldest.type} of ${oldest.occurredAt}; ` +
    `attempt ${v.attempts} failed: ${v.lastFailure?.message ?? 'no answer'}` +
    (v.nextAttemptAt !== undefined ? `; next attempt at ${v.nextAttemptAt}` : '')
  );
}
