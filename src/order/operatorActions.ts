/**
 * The operator's actions on an order (the Updates resume, changeLogistics, approvePayment,
 * provideWaybill, cancel, amend), written by this class alone: those waiting to be applied, those
 * the order accepts right now, and the cancel being carried out or held. Each Update resolves
 * once the workflow has answered its action.
 */
import type { Duration } from '@temporalio/common';
import { condition } from '@temporalio/workflow';
import type { ActionResult, Stage } from './contract.js';

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

/** Thrown inside the workflow when an operator cancels; caught at the top. */
export class CancelRequested extends Error {
  constructor(readonly reason: string) {
    super(`cancelled: ${reason}`);
  }
}

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

export interface PendingAction {
  id: number;
  kind: ActionKind;
  input: unknown;
  result?: ActionResult;
}

export class OperatorActions {
  private readonly acceptingNow = new Set<ActionKind>();
  private readonly waiting: PendingAction[] = [];
  private nextActionId = 1;
  /** The cancel action being carried out, answered once the order is CANCELLED. */
  private cancelling: PendingAction | undefined;
  /** A cancel taken while the checkout coordinator is asked to let the order go. */
  private heldCancel: PendingAction | undefined;

  /** `stage`: the order's stage, which every answer names. */
  constructor(private readonly stage: () => Stage) {}

  /** The actions the workflow waits for right now; validators refuse the others. */
  get accepting(): ReadonlySet<ActionKind> {
    return this.acceptingNow;
  }

  /** The workflow waits for these from now on. */
  accept(kinds: readonly ActionKind[]): void {
    for (const kind of kinds) this.acceptingNow.add(kind);
  }

  /** The wait for these is over. */
  acceptNoMore(kinds: readonly ActionKind[]): void {
    for (const kind of kinds) this.acceptingNow.delete(kind);
  }

  /** Queues an action from an Update and resolves when the workflow has applied it. */
  async request(kind: ActionKind, input: unknown): Promise<ActionResult> {
    const action: PendingAction = { id: this.nextActionId++, kind, input };
    this.waiting.push(action);
    // Bounded: the workflow answers every waiting action before it ends (fulfillOrder), and the
    // caller's Update gives up after ANSWER_TIMEOUT_SECONDS (src/client/unanswered.ts).
    await condition(() => action.result !== undefined);
    return action.result!;
  }

  /** Whether an action of one of these kinds is waiting. */
  has(kinds: readonly ActionKind[]): boolean {
    return this.waiting.some((a) => kinds.includes(a.kind));
  }

  /** Takes the oldest waiting action of these kinds. */
  take(kinds: readonly ActionKind[]): PendingAction | undefined {
    const i = this.waiting.findIndex((a) => kinds.includes(a.kind));
    return i < 0 ? undefined : this.waiting.splice(i, 1)[0];
  }

  answer(action: PendingAction, message: string, accepted = true): void {
    action.result = { accepted, stage: this.stage(), message };
  }

  /** Answers every waiting action of these kinds (all when none given) as not carried out. */
  refuseWaiting(why: string, kinds: readonly ActionKind[] = ALL_ACTIONS): void {
    for (let a = this.take(kinds); a; a = this.take(kinds)) this.answer(a, why, false);
  }

  /** The cancel being carried out. */
  get pendingCancel(): PendingAction | undefined {
    return this.cancelling;
  }

  /** A cancel is carried out: answered once the order is CANCELLED. */
  cancelTaken(cancel: PendingAction): void {
    this.cancelling = cancel;
  }

  /** A cancel waits while the coordinator is asked to let the order go. */
  holdCancel(action: PendingAction): void {
    this.heldCancel = action;
  }

  get holdsCancel(): boolean {
    return this.heldCancel !== undefined;
  }

  /** The held cancel, if any, taken out of hold. */
  unholdCancel(): PendingAction | undefined {
    const action = this.heldCancel;
    this.heldCancel = undefined;
    return action;
  }

  get cancelUnderWay(): boolean {
    return this.heldCancel !== undefined || this.has(['cancel']);
  }
}
