/** Stopping for a person: waiting stages, operator actions, and NEEDS_ATTENTION. */
import type { Duration } from '@temporalio/common';
import { ActivityFailure, condition } from '@temporalio/workflow';
import { Stage } from '../../client/definitions.js';
import { failureInfo, supplierFailure } from '../failures.js';
import type { ActionKind, Order, PendingAction } from '../order.js';

export interface WaitOptions {
  /** Ends the wait without an action (an outside event arrived). */
  until?: () => boolean;
  /** Ends the wait after this long without either. */
  timeout?: Duration;
}

/**
 * Enters a waiting stage and waits for one of `actions` (cancel too, while unpaid), for
 * `until`, or for the timeout. Returns the action taken, or undefined when the wait ended without.
 * A cancel throws CancelRequested.
 */
export async function waitAt(
  o: Order,
  stage: Stage,
  waitingFor: string,
  actions: readonly ActionKind[],
  options: WaitOptions = {},
): Promise<PendingAction | undefined> {
  if (o.stage !== stage) o.enter(stage);
  o.waitFor(waitingFor);
  const kinds: readonly ActionKind[] = o.paid ? actions : [...actions, 'cancel'];
  const wake = () => o.hasAction(kinds) || (options.until?.() ?? false);
  if (options.timeout === undefined) await condition(wake);
  else await condition(wake, options.timeout);
  o.checkCancel();
  return o.take(actions);
}

/**
 * A step failed in a way retrying cannot mend: stop at NEEDS_ATTENTION with the supplier's code,
 * message and requestId until an operator resumes (the caller then retries the step) or cancels.
 * Anything that is not an activity failure is a bug and fails the workflow task.
 */
export async function needsAttention(o: Order, step: string, err: unknown): Promise<void> {
  const f = supplierFailure(err);
  if (!f && !(err instanceof ActivityFailure)) throw err;
  o.status.error = f
    ? failureInfo(step, f)
    : { step, message: (err as ActivityFailure).cause?.message ?? (err as Error).message };
  const action = await waitAt(
    o,
    Stage.NEEDS_ATTENTION,
    `resume after the cause of ${step} is fixed, or cancel`,
    ['resume'],
  );
  if (action) o.answer(action, `retrying ${step}`);
}
