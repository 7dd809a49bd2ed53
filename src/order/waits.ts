/**
 * Where the order stops and waits (for a person, an event, the truth about a call that may have
 * acted) and what it does with the actions people take there: a cancel carried out or refused,
 * an amend taken. It is the host a supplier step reports to (../durable/stepHost.ts). It keeps no
 * state of its own: each thing it changes is written by the part that owns it.
 */
import { condition } from '@temporalio/workflow';
import { Stage, type AmendInput } from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import type { AmendableField } from './orderInput.js';
import { amendRemedy, type CurrentOrder } from './currentOrder.js';
import { stopData } from './storeEventData.js';
import { DEFAULT_SUPPLIER_LAG_SECONDS } from '../durable/supplierStep.js';
import type { AttentionOptions, OutcomeInDoubt, StepHost } from '../durable/stepHost.js';
import {
  CancelRequested,
  type ActionKind,
  type OperatorActions,
  type PendingAction,
  type WaitOptions,
} from './operatorActions.js';
import type { PaymentRules } from './paymentRules.js';
import { PAYMENT_STEP } from '../durable/shipmentPayment.js';
import type { StatusProjection } from './statusProjection.js';
import type { StoreSide } from './storeSide.js';
import type { StoreNotices } from './storeNotices.js';

/** The parts a wait reads and tells. */
export interface WaitsHost {
  readonly view: StatusProjection;
  readonly actions: OperatorActions;
  readonly money: PaymentRules;
  readonly current: CurrentOrder;
  readonly storeSide: Pick<StoreSide, 'passCancel'>;
  readonly notices: Pick<StoreNotices, 'stopped'>;
}

export class Waits implements StepHost {
  /** A used-up daily quota stops the order, saying so, until it resets. */
  readonly quotaStops = true;

  constructor(private readonly o: WaitsHost) {}

  get supplierLagMs(): number {
    const seconds = this.o.current.input.fulfillment.supplierLagSeconds;
    return (seconds ?? DEFAULT_SUPPLIER_LAG_SECONDS) * 1_000;
  }

  note(note: string): void {
    this.o.view.note(note);
  }

  waitFor(what: string): void {
    this.o.view.waitFor(what);
  }

  doneWaiting(): void {
    this.o.view.doneWaiting();
  }

  unknownOutcome(): OutcomeInDoubt | undefined {
    return this.o.view.unknownOutcome;
  }

  /** A call that may have acted lost its answer; until settled, it is not sent again. */
  outcomeUnknown(step: string): void {
    if (step === PAYMENT_STEP) this.o.money.inDoubt();
    this.o.view.outcomeUnknown(step);
  }

  /** The truth about an unknown outcome is established: `done`, or proven not done. */
  outcomeSettled(done: boolean): void {
    if (!done && this.o.view.unknownOutcome?.step === PAYMENT_STEP) this.o.money.provenUnpaid();
    this.o.view.outcomeSettled();
  }

  /**
   * Enters a waiting stage and waits for one of `actions` (cancel too, while the order can be
   * cancelled), for `until`, or for the timeout. Returns the action taken, or undefined when the
   * wait ended without. Only while waiting do the Updates of `actions` pass their validators; a
   * second one that arrived with the first is answered as already handled. A cancel throws
   * CancelRequested. When the wait ends with an action or `until`, the order is back at work in
   * the stage it was in before (its waitingFor and NeedsAttention cleared).
   */
  async at(
    stage: Stage,
    waitingFor: string,
    kinds: readonly ActionKind[],
    options: WaitOptions = {},
  ): Promise<PendingAction | undefined> {
    const { view, actions, money } = this.o;
    if (view.stage !== stage) view.enter(stage);
    view.waitingFor(waitingFor);
    this.o.storeSide.passCancel();
    if (view.needsPerson) this.o.notices.stopped(() => stopData(view.status));
    if (options.brief !== true) view.flush();
    const withCancel = money.cancellable && !actions.holdsCancel;
    const all: readonly ActionKind[] = withCancel ? [...kinds, 'cancel'] : kinds;
    const wake = () => actions.has(all) || (options.until?.() ?? false);
    actions.accept(kinds);
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
          view.flush();
          woken = await wait();
        }
      } else {
        woken = await wait();
      }
    } finally {
      actions.acceptNoMore(kinds);
    }
    if (withCancel && options.cancelReturns !== true) this.checkCancel();
    const action = actions.take(withCancel && options.cancelReturns === true ? all : kinds);
    actions.refuseWaiting('already handled by an earlier request', kinds);
    if (woken) view.waitEnded(action?.kind);
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
    const { view, actions } = this.o;
    view.enter(Stage.NEEDS_ATTENTION);
    view.failed(info);
    for (;;) {
      // Before the supplier has the order, what stops it may be in the order itself.
      const amendable = this.o.current.amendable;
      const action = await this.at(
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
          view.enter(Stage.NEEDS_ATTENTION);
          view.failed(info);
          continue;
        }
        actions.answer(action, `amended ${fields.join(', ')}; going on with ${info.step}`);
        return;
      }
      actions.answer(action, `going on with ${info.step}`);
      return;
    }
  }

  /**
   * Takes an amend action: the order's body becomes the amended one (checked again), its later
   * create carries the changes, and the timeline names the changed fields (never their values).
   * Returns the changed fields, or undefined when the changes no longer make a valid order (the
   * action is then answered as refused).
   */
  amended(action: PendingAction): AmendableField[] | undefined {
    const { order: changes, by } = (action.input ?? {}) as AmendInput;
    const result = this.o.current.amend(changes);
    if (!result.ok) {
      const issues = result.issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
      this.o.actions.answer(action, `amend refused: ${issues}`, false);
      return undefined;
    }
    const after = result.input.order as Record<string, unknown>;
    if (result.fields.includes('logisticName') && after['logisticName'] !== undefined) {
      this.o.view.record({ logisticName: after['logisticName'] as string });
    }
    this.o.view.note(
      `amended: ${result.fields.join(', ')}${by !== undefined ? ` (by ${by})` : ''}`,
    );
    return result.fields;
  }

  /** The held cancel, if any: carried out now (throws CancelRequested) or refused. */
  releaseCancel(refusal?: string): void {
    const action = this.o.actions.unholdCancel();
    if (action === undefined) return;
    if (refusal !== undefined) this.o.actions.answer(action, refusal, false);
    else this.cancelWith(action);
  }

  /** Cancels now if an operator asked to and the order still can be (checked between steps). */
  checkCancel(): void {
    this.o.storeSide.passCancel();
    const cancel = this.o.actions.take(['cancel']);
    if (cancel) this.cancelWith(cancel);
  }

  /** Carries a cancel out (throws CancelRequested), or answers why the money forbids it. */
  private cancelWith(cancel: PendingAction): void {
    const refusal = this.o.money.cancelRefusal;
    if (refusal !== undefined) {
      this.o.actions.answer(cancel, refusal, false);
      return;
    }
    const reason =
      (cancel.input as { reason?: string } | undefined)?.reason ?? 'cancelled by operator';
    this.o.actions.cancelTaken(cancel);
    throw new CancelRequested(reason);
  }
}
