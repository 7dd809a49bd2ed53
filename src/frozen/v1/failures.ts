/** Reading the supplier failures that activities raise (supplier/failureDetails.ts) in workflow code. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type {
  FailureType as FailureTypeName,
  SupplierFailureDetails,
  FailureInfo,
} from '../../supplier/failureDetails.js';
import { FailureType } from '../common/supplier.js';

export interface SupplierFailure {
  type: FailureTypeName;
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
  return { type: cause.type as FailureTypeName, details };
}

export function isBusiness(f: SupplierFailure | undefined, code: number): boolean {
  return f?.type === FailureType.Business && f.details.code === code;
}

export function failureInfo(step: string, f: SupplierFailure): FailureInfo {
  return {
    step,
    message: `${f.details.endpoint}: ${f.details.message}`,
    ...(f.details.code !== undefined && { code: f.details.code }),
    ...(f.details.requestId !== undefined && { requestId: f.details.requestId }),
  };
}

/**
 * Whether the supplier may have acted on a call that failed: its answer was lost, or the activity
 * itself failed (timed out, its worker died). A supplier error answer, or a request that never
 * left, is sure: nothing happened.
 */
export function mayHaveActed(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const f = supplierFailure(err);
  return f === undefined || f.type === FailureType.Ambiguous;
}

/** Whether trying the same call again later may succeed (rate limit, busy, 5xx before acting). */
export function isRetryable(err: unknown): boolean {
  return supplierFailure(err)?.type === FailureType.Retryable;
}

/** A growing pause between the workflow's own retries: 2 s, 4 s, … up to a minute. */
export function backoff(attempt: number): number {
  return Math.min(2 ** attempt, 60) * 1_000;
}
