/**
 * The workflow state a supplier step (supplierStep.ts) and its token wait (tokenWait.ts) report to:
 * an order, a dispute, the checkout coordinator.
 */
import type { FailureInfo } from '../supplier/failureDetails.js';

/** A call that may have acted and whose outcome is not known yet. */
export interface OutcomeInDoubt {
  step: string;
  /** When it became unknown (ISO). */
  since: string;
}

/** The workflow state a supplier step reports to (an order, a dispute). */
export interface StepHost {
  /** Throws the workflow's cancel if an operator asked for one and it may be honoured now. */
  checkCancel(): void;
  unknownOutcome(): OutcomeInDoubt | undefined;
  outcomeUnknown(step: string): void;
  outcomeSettled(done: boolean): void;
  note(text: string): void;
  /** Says what the workflow waits for (status and UI), without changing stage. */
  waitFor(what: string): void;
  /** It no longer waits for that. */
  doneWaiting(): void;
  /**
   * A used-up daily quota stops the workflow at NEEDS_ATTENTION until it resets (an order, a
   * dispute: what operators follow). Without it the step waits the quota out (a checkout batch,
   * whose orders show their own wait).
   */
  readonly quotaStops?: boolean;
  /** How long the supplier's own view may trail what it did. */
  readonly supplierLagMs: number;
  /**
   * Stops for a person until resumed, or until `until` holds (the cause went away by itself), or
   * throws the workflow's cancel.
   */
  needsAttention(info: FailureInfo, remedy?: string, options?: AttentionOptions): Promise<void>;
}

export interface AttentionOptions {
  /** Ends the stop without a person: checked whenever the workflow wakes. */
  until?: () => boolean;
}
