/**
 * The frozen runs' copy of durable/supplierStep.ts as it was on 2026-11-28.
 *
 * The one way a workflow calls the supplier. Every call goes through `supplierStep`:
 *
 * - A call that may act (create, cart, confirm, parent order, payment, waybill, connection,
 *   dispute) is sent once. When its outcome is unknown (the answer was lost, the attempt died) or
 *   the supplier answers in a way that may mean "already done" (`doubtful`: a duplicate order,
 *   "already paid"), nothing is sent again until `lookUp` establishes the truth: done (its value
 *   is used), or proven not done — the supplier still does not show it once its view had time to
 *   catch up (`lagMs`). While in doubt the order says so (status.outcomeUnknown), and a payment in
 *   doubt keeps cancel shut.
 * - A read is simply sent again.
 * - Busy, rate-limited and quota answers are waited out (growing pauses; a quota until its reset)
 *   and never spend attempts; an order or a dispute waits out a used-up daily quota at
 *   NEEDS_ATTENTION, saying so, and goes on by itself when it resets. A call dropflow's own
 *   pacing held back waits for its slot, no more; a call that found no access token waits for the
 *   token (tokenWait.ts). Other transient failures are tried a few times.
 * - Whatever else fails — a look-up included — stops at NEEDS_ATTENTION with the step, the
 *   supplier's code, message and requestId; `resume` goes on from there (looking up first when
 *   the outcome is still unknown). A refusal the caller handles (`expected`) is returned to it.
 *
 * No activity failure ever fails the workflow.
 */
import {
  ActivityFailure,
  CancellationScope,
  isCancellation,
  metricMeter,
  sleep,
} from '@temporalio/workflow';
import type { FailureInfo } from '../../supplier/failureDetails.js';
import type { StepHost } from '../../durable/stepHost.js';
import { workflowAccount } from './account.js';
import {
  backoff,
  failureInfo,
  failureOf,
  isDailyQuota,
  isThrottled,
  isTransient,
  mayHaveActed,
  pacedDelay,
  supplierFailure,
  throttleDelay,
  type SupplierFailure,
} from './failures.js';
import { has, Patch } from './patches.js';
import { waitForToken } from './tokenWait.js';

/** What the supplier's own view says of a call whose outcome was unknown. */
export type Seen<T> = { done: true; value: T; note?: string } | { done: false };

export interface SupplierStep<T> {
  /** The operator's name for the step: the endpoint. */
  name: string;
  /** Sends the call once. */
  send: () => Promise<T>;
  /** For calls that may act: whether the supplier shows it done. Reads leave it out. */
  lookUp?: () => Promise<Seen<T>>;
  /** Refusals that may mean the call was done already: settled by `lookUp`, not believed. */
  doubtful?: (f: SupplierFailure) => boolean;
  /** Refusals the caller handles: returned as `refused`. */
  expected?: (f: SupplierFailure) => boolean;
  /** Called when the call was proven not done, before it is sent again. */
  beforeResend?: () => Promise<void>;
  /** Cancel is honoured between attempts (default true; the order decides if it may be). */
  cancellable?: boolean;
}

export type StepResult<T> =
  { ok: true; value: T; found: boolean; note?: string } | { ok: false; failure: SupplierFailure };

/** Failed attempts of a transient kind (5xx, reset, a read's timeout) that ask a person. */
const MAX_TRANSIENT_ATTEMPTS = 3;
/** Failed look-ups in a row, while an outcome is unknown, that ask a person. */
const MAX_LOOKUP_FAILURES = 3;
/** "Already done" answers that the supplier's view still contradicts before a person is asked. */
const MAX_DOUBTFUL_ANSWERS = 2;

export async function supplierStep<T>(o: StepHost, step: SupplierStep<T>): Promise<StepResult<T>> {
  let transient = 0;
  let throttled = 0;
  /** A throttled wait said what the step waits for. */
  let waited = false;
  let doubtful = 0;
  for (;;) {
    if (step.cancellable !== false) o.checkCancel();
    if (step.lookUp && o.unknownOutcome()?.step === step.name) {
      const seen = await settleOutcome(o, step.name, step.lookUp);
      if (seen.done) {
        o.outcomeSettled(true);
        return {
          ok: true,
          value: seen.value,
          found: true,
          ...(seen.note !== undefined && { note: seen.note }),
        };
      }
      o.outcomeSettled(false);
      o.note(`${step.name} proven not done at the supplier; sending it again`);
      await step.beforeResend?.();
    }
    try {
      const value = await step.send();
      if (waited) o.doneWaiting();
      return { ok: true, value, found: false };
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const f = supplierFailure(err);
      if (step.lookUp && mayHaveActed(err)) {
        o.outcomeUnknown(step.name);
        o.note(`${step.name}: no answer (${failureOf(step.name, err).message}); looking it up`);
        continue;
      }
      if (step.lookUp && f && step.doubtful?.(f)) {
        if (++doubtful > MAX_DOUBTFUL_ANSWERS) {
          o.outcomeUnknown(step.name);
          await o.needsAttention(
            failureInfo(step.name, f),
            `check ${step.name} at the supplier: it answers as if done but does not show it; resume to look again, or cancel`,
          );
          continue;
        }
        o.outcomeUnknown(step.name);
        o.note(`${step.name}: ${f.details.message}; looking it up`);
        continue;
      }
      if (f && waitsForToken(f)) {
        await waitForToken(o, step, f.details);
        continue;
      }
      if (stopsForQuota(o, f)) {
        await stopUntilReset(o, step.name, f!);
        continue;
      }
      if (isThrottled(f)) {
        await waitOut(o, f!, heldForSlot(f!) ? 0 : ++throttled);
        waited = true;
        continue;
      }
      if (f && step.expected?.(f)) {
        if (waited) o.doneWaiting();
        return { ok: false, failure: f };
      }
      if (isTransient(err) && ++transient < MAX_TRANSIENT_ATTEMPTS) {
        await sleep(backoff(transient));
        continue;
      }
      transient = 0;
      await o.needsAttention(failureOf(step.name, err));
    }
  }
}

/**
 * Looks the outcome of `name` up until the supplier shows it done, or shows it not done after
 * its view had the host's lag to catch up since the outcome became unknown. Look-ups that keep
 * failing stop for a person (resume looks again), or, with `askPerson` false (a cancel that is
 * already decided), end the search with `unsettled`.
 */
async function settleOutcome<T>(
  o: StepHost,
  name: string,
  lookUp: () => Promise<Seen<T>>,
  { askPerson = true } = {},
): Promise<Seen<T> | { done: false; unsettled: FailureInfo }> {
  const lagMs = o.supplierLagMs;
  const since = Date.parse(o.unknownOutcome()!.since);
  let failures = 0;
  let throttled = 0;
  const lookingUp = `the outcome of ${name}, unknown since its answer was lost: looking it up at the supplier (its view may trail by up to ${Math.round(lagMs / 1000)} s)`;
  for (let attempt = 1; ; attempt++) {
    const askedAt = new Date().getTime();
    o.waitFor(lookingUp);
    try {
      const seen = await lookUp();
      failures = 0;
      if (seen.done || askedAt - since >= lagMs) {
        o.doneWaiting();
        reconciled(name, seen.done ? 'found' : 'not_found');
        return seen;
      }
      await sleep(
        Math.min(backoff(attempt), Math.max(1_000, since + lagMs - new Date().getTime())),
      );
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const f = supplierFailure(err);
      if (f && waitsForToken(f)) {
        await waitForToken(o, { name: `${name} look-up`, cancellable: false }, f.details);
        continue;
      }
      if (askPerson && stopsForQuota(o, f)) {
        await stopUntilReset(o, `${name} look-up`, f!);
        continue;
      }
      if (isThrottled(f)) {
        await waitOut(o, f!, heldForSlot(f!) ? 0 : ++throttled);
        continue;
      }
      if (++failures < MAX_LOOKUP_FAILURES) {
        await sleep(backoff(failures));
        continue;
      }
      failures = 0;
      reconciled(name, 'failed');
      const info = failureOf(`${name} look-up`, err);
      const unsettled = {
        ...info,
        message: `the outcome of ${name} is unknown and looking it up failed: ${info.message}`,
      };
      if (!askPerson) {
        o.doneWaiting();
        return { done: false, unsettled };
      }
      await o.needsAttention(unsettled, lookUpRemedy(name));
    }
  }
}

/** What moves on a stop for a look-up of `name` that kept failing. */
function lookUpRemedy(name: string): string {
  return `resume to look ${name} up again once the supplier answers, or check it in the supplier's console`;
}

const RECONCILIATIONS_HELP =
  'look-ups settling a supplier call whose outcome was unknown: found (done), not_found (proven not done), failed (the look-ups kept failing)';

/** How a look-up after an unknown outcome ended (a metric only: no command, none in replay). */
function reconciled(step: string, result: 'found' | 'not_found' | 'failed'): void {
  metricMeter.createCounter('dropflow_reconciliations', undefined, RECONCILIATIONS_HELP).add(1, {
    step,
    result,
    account: workflowAccount(),
  });
}

/** Held back by dropflow's pacing (never sent): it waits for its slot, and counts nothing. */
function heldForSlot(f: SupplierFailure): boolean {
  return f.details.paced === true && has(Patch.PacedSlot);
}

/** No access token (never sent): it waits for the token (tokenWait.ts). */
function waitsForToken(f: SupplierFailure): boolean {
  return f.details.noToken === true && has(Patch.TokenWait);
}

/** The account's daily quota is used up, and the host stops for it (see StepHost.quotaStops). */
function stopsForQuota(o: StepHost, f: SupplierFailure | undefined): boolean {
  return o.quotaStops === true && isDailyQuota(f) && has(Patch.QuotaStop);
}

/** Even a quota that resets in a moment is not asked about again sooner. */
const MIN_QUOTA_STOP_MS = 1_000;

/**
 * NEEDS_ATTENTION, named by the quota's answer, until the quota resets (a timer) or an operator
 * resumes; either way the step is tried again.
 */
async function stopUntilReset(o: StepHost, step: string, f: SupplierFailure): Promise<void> {
  const ms = Math.max(f.details.retryAfterMs ?? 0, MIN_QUOTA_STOP_MS);
  const resetAt = new Date(new Date().getTime() + ms).toISOString();
  // Set by the timer while the stop waits (an object: the compiler cannot see that).
  const quota = { reset: false };
  const scope = new CancellationScope();
  const timer = scope
    .run(() => sleep(ms))
    .then(
      () => {
        quota.reset = true;
      },
      (err: unknown) => {
        if (!isCancellation(err)) throw err;
      },
    );
  try {
    await o.needsAttention(
      failureInfo(step, f),
      `the account's daily request quota is used up until it resets at ${resetAt}; dropflow tries ${step} again by itself then — resume to try sooner, or cancel`,
      { until: () => quota.reset },
    );
  } finally {
    scope.cancel();
  }
  await timer;
  if (quota.reset) o.note(`the daily quota has reset; trying ${step} again`);
}

/**
 * The supplier asks us to slow down, or dropflow's pacing held the call back: say so, and wait.
 * `attempt` 0: the call was held for the account's slot and waits for it, no more.
 */
async function waitOut(o: StepHost, f: SupplierFailure, attempt: number): Promise<void> {
  const ms = attempt === 0 ? pacedDelay(f) : throttleDelay(f, attempt);
  const why =
    f.details.noToken === true
      ? `no access token for the account (${f.details.message})`
      : attempt === 0
        ? `the account's request budget: its next slot`
        : `the supplier asks to slow down (${f.details.message})`;
  o.waitFor(`${why}; trying again in ${Math.round(ms / 1000)} s`);
  await sleep(ms);
}

/** A step whose refusals the caller does not handle: it returns only once the call is done. */
export async function supplierCall<T>(
  o: StepHost,
  step: Omit<SupplierStep<T>, 'expected'>,
): Promise<{ value: T; found: boolean; note?: string }> {
  for (;;) {
    const r = await supplierStep(o, step);
    if (r.ok) return r;
    await o.needsAttention(failureInfo(step.name, r.failure));
  }
}
