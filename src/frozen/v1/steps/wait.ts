/** Stopping for a person: waiting stages, operator actions, and NEEDS_ATTENTION. */
import type { Duration } from '@temporalio/common';
import { ActivityFailure, condition } from '@temporalio/workflow';
import { Stage } from '../../common/contracts.js';
import type { FailureInfo } from '../../../supplier/failureDetails.js';
import { failureInfo, supplierFailure } from '../failures.js';
import type { ActionKind, FrozenOrderV1, PendingAction } from '../order.js';

export interface WaitOptions {
  /** Ends the wait without an action (an outside event arrived). */
  until?: () => boolean;
  /** Ends the wait after this long without either. */
  timeout?: Duration;
}

/**
 * Enters a waiting stage and waits for one of `actions` (cancel too, while the order can be
 * cancelled), for `until`, or for the timeout. Returns the action taken, or undefined when the
 * wait ended without. Only while waiting do the Updates of `actions` pass their validators; a
 * second one that arrived with the first is answered as already handled. A cancel throws
 * CancelRequested.
 */
export async function waitAt(
  o: FrozenOrderV1,
  stage: Stage,
  waitingFor: string,
  actions: readonly ActionKind[],
  options: WaitOptions = {},
): Promise<PendingAction | undefined> {
  if (o.stage !== stage) o.enter(stage);
  o.waitFor(waitingFor);
  const withCancel = o.cancellable;
  const kinds: readonly ActionKind[] = withCancel ? [...actions, 'cancel'] : actions;
  const wake = () => o.hasAction(kinds) || (options.until?.() ?? false);
  for (const kind of actions) o.accepting.add(kind);
  try {
    if (options.timeout === undefined) await condition(wake);
    else await condition(wake, options.timeout);
  } finally {
    for (const kind of actions) o.accepting.delete(kind);
  }
  if (withCancel) o.checkCancel();
  const action = o.take(actions);
  o.refuseWaiting('already handled by an earlier request', actions);
  return action;
}

/**
 * A step failed in a way retrying cannot mend: stop at NEEDS_ATTENTION with the supplier's code,
 * message and requestId until an operator resumes (the caller then retries the step) or cancels.
 * Anything that is not an activity failure is a bug and fails the workflow task.
 */
export async function needsAttention(o: FrozenOrderV1, step: string, err: unknown): Promise<void> {
  if (!(err instanceof ActivityFailure)) throw err;
  o.status.error = failureOf(step, err);
  const action = await waitAt(
    o,
    Stage.NEEDS_ATTENTION,
    `resume after the cause of ${step} is fixed, or cancel`,
    ['resume'],
  );
  if (action) o.answer(action, `retrying ${step}`);
}

/** What the operator sees of a failed activity: the supplier's words when there are any. */
export function failureOf(step: string, err: ActivityFailure): FailureInfo {
  const f = supplierFailure(err);
  return f ? failureInfo(step, f) : { step, message: err.cause?.message ?? err.message };
}
