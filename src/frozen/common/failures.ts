/**
 * Reading the supplier failures that activities raise, in frozen runs: copied from
 * durable/failures.ts as it was on 2026-11-28.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { SupplierFailureDetails, FailureInfo } from '../../supplier/failureDetails.js';
import { UNKNOWN_ACCOUNT_FAILURE } from './contracts.js';
import { FailureType, SupplierCode } from './supplier.js';

export interface SupplierFailure {
  type: FailureType;
  details: SupplierFailureDetails;
}

/** The supplier failure behind an activity failure, or undefined for anything else. */
export function supplierFailure(err: unknown): SupplierFailure | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const types = Object.values(FailureType) as string[];
  if (cause.type == null || !types.includes(cause.type)) return undefined;
  const details = (cause.details?.[0] ?? {
    endpoint: 'unknown',
    message: cause.message,
  }) as SupplierFailureDetails;
  return { type: cause.type as FailureType, details };
}

export function isBusiness(f: SupplierFailure | undefined, code: number): boolean {
  return f?.type === FailureType.Business && f.details.code === code;
}

export function failureInfo(step: string, f: SupplierFailure): FailureInfo {
  // The activity's message already names the endpoint; say it once.
  const prefix = `${f.details.endpoint}: `;
  const message = f.details.message.startsWith(prefix)
    ? f.details.message
    : `${prefix}${f.details.message}`;
  return {
    step,
    message,
    ...(f.details.code !== undefined && { code: f.details.code }),
    ...(f.details.requestId !== undefined && { requestId: f.details.requestId }),
  };
}

/** What the operator sees of a failed activity: the supplier's words when there are any. */
export function failureOf(step: string, err: ActivityFailure): FailureInfo {
  const f = supplierFailure(err);
  return f ? failureInfo(step, f) : { step, message: err.cause?.message ?? err.message };
}

/**
 * Whether the supplier may have acted on a call that failed: its answer was lost, or the activity
 * itself failed (timed out, its worker died). A supplier error answer, or a request that never
 * left, is sure: nothing happened.
 */
export function mayHaveActed(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  if (unknownAccount(err)) return false;
  const f = supplierFailure(err);
  return f === undefined || f.type === FailureType.Ambiguous;
}

/**
 * The supplier asks us to slow down (busy, rate-limited, a used-up daily quota), dropflow held the
 * call back to keep the account within its rate, or there is no access token for the account:
 * waited out, never counted against a step's attempts — nothing about the order itself is wrong.
 */
export function isThrottled(f: SupplierFailure | undefined): boolean {
  if (f?.type !== FailureType.Retryable) return false;
  const code = f.details.code;
  return (
    f.details.noToken === true ||
    f.details.paced === true ||
    code === SupplierCode.SystemBusy ||
    code === SupplierCode.TooManyRequests ||
    (f.details.retryAfterMs ?? 0) > MAX_BACKOFF_MS
  );
}

/**
 * The account's daily quota is used up (supplier/errors.ts classify: its message, 1600201): nothing
 * helps before its reset, `retryAfterMs` away. Known by the code, or by a wait longer than any
 * backoff, which only a quota asks for.
 */
export function isDailyQuota(f: SupplierFailure | undefined): boolean {
  if (f?.type !== FailureType.Retryable) return false;
  if (f.details.paced === true || f.details.noToken === true) return false;
  return (
    f.details.code === SupplierCode.QuotaUsedUp || (f.details.retryAfterMs ?? 0) > MAX_BACKOFF_MS
  );
}

/** Whether trying again later may succeed (5xx, a reset before sending, an activity timeout). */
export function isTransient(err: unknown): boolean {
  if (unknownAccount(err)) return false;
  const f = supplierFailure(err);
  return f === undefined || f.type === FailureType.Retryable || f.type === FailureType.Ambiguous;
}

const MAX_BACKOFF_MS = 10 * 60_000;

/** A growing pause between the workflow's own retries: 2 s, 4 s, … up to ten minutes. */
export function backoff(attempt: number): number {
  return Math.min(2 ** Math.min(attempt, 20) * 1_000, MAX_BACKOFF_MS);
}

/** How long to wait after a throttled answer: until the quota resets, or a growing backoff. */
export function throttleDelay(f: SupplierFailure, attempt: number): number {
  const after = f.details.retryAfterMs ?? 0;
  return after > MAX_BACKOFF_MS ? after : Math.max(after, backoff(attempt));
}

/**
 * How long a call dropflow's pacing held back (not sent) waits: until the account's slot it was
 * told of. Queueing, not a failure: it never grows.
 */
export function pacedDelay(f: SupplierFailure): number {
  return Math.max(MIN_PACED_DELAY_MS, f.details.retryAfterMs ?? MIN_PACED_DELAY_MS);
}

const MIN_PACED_DELAY_MS = 1_000;

/**
 * The worker does not know the task's account (accounts/activityAccount.ts): nothing was sent, and
 * only a person adding the account helps. No run before accounts were data met this failure.
 */
function unknownAccount(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === UNKNOWN_ACCOUNT_FAILURE
  );
}
