/**
 * Runs one supplier call inside an activity and turns its failure into the ApplicationFailure the
 * workflow acts on (supplier/failureDetails.ts). Temporal retries the retryable ones, after the supplier's
 * delay where it gave one; the rest reach the workflow at once.
 *
 * The call takes its place in the account's line at the activity's priority. The server already
 * spaced the account's tasks while they were scheduled; a slot further away than
 * MAX_PACE_WAIT_MS is not waited for inside the activity (it would eat the start-to-close
 * timeout): the attempt ends unsent and goes back to the server's queue after PACED_RETURN_MS.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  CONFIRMED_WITHOUT_SHIPMENT,
  FailureType,
  type SupplierFailureDetails,
} from './failureDetails.js';
import type { CallResult, SupplierClient } from './client.js';
import type { Endpoint, RequestOf, ResponseOf } from './endpoint.js';
import { PaceTooLong } from './pacer.js';
import { getAccessToken } from './api/auth.js';
import {
  formatIssues,
  SupplierCode,
  SupplierError,
  SupplierRequestInvalid,
  SupplierResponseInvalid,
  SupplierTransportError,
} from './errors.js';
import { TokenUnavailable } from './tokenSource.js';

export async function supplierCall<E extends Endpoint>(
  supplier: SupplierClient,
  ep: E,
  input: RequestOf<E>,
): Promise<ResponseOf<E>> {
  return (await supplierExchange(supplier, ep, input)).data;
}

/** Like supplierCall, also returning the supplier's requestId. */
export async function supplierExchange<E extends Endpoint>(
  supplier: SupplierClient,
  ep: E,
  input: RequestOf<E>,
): Promise<CallResult<ResponseOf<E>>> {
  try {
    const { cancellationSignal, info } = Context.current();
    // Its cancellation (or timeout) also ends the wait for a slot and aborts the HTTP request.
    return await supplier.exchange(ep, input, {
      signal: cancellationSignal,
      priority: info.priority?.priorityKey,
      maxPaceWaitMs: MAX_PACE_WAIT_MS,
    });
  } catch (err) {
    throw toApplicationFailure(ep.name, err);
  }
}

/** The longest wait for the account's next slot inside an activity. */
export const MAX_PACE_WAIT_MS = 5_000;

/**
 * How soon a task refused by this process's pacing goes back to the server's queue, however far
 * this process's own slot was. The server hands it to whichever process has room, in its turn: on
 * a fleet the far slot was this process's, and waiting for it left the others' slots unused once
 * the backlog ran out (`dropflow bench accounts`: refused creates came back 10 to 12 s later and
 * were the last orders of the backlog to be paid).
 */
export const PACED_RETURN_MS = 1_000;

export function toApplicationFailure(endpoint: string, err: unknown): unknown {
  if (err instanceof PaceTooLong) {
    const details: SupplierFailureDetails = {
      endpoint,
      message: err.message,
      retryAfterMs: Math.min(err.waitMs, PACED_RETURN_MS),
      paced: true,
    };
    return ApplicationFailure.create({
      type: FailureType.Retryable,
      message: `${endpoint}: not sent, ${err.message}`,
      details: [details],
      nextRetryDelay: details.retryAfterMs,
    });
  }
  if (
    (err instanceof SupplierError || err instanceof SupplierTransportError) &&
    err.endpoint !== endpoint
  ) {
    // A token call failed first: the call itself never left, whatever the token call's answer.
    const details: SupplierFailureDetails = {
      endpoint,
      message: err.message,
      noToken: true,
      ...(err instanceof SupplierError && { code: err.code, requestId: err.requestId }),
      ...((keyRefused(err) || (err instanceof TokenUnavailable && err.keyRefused)) && {
        keyRefused: true,
      }),
      ...(err instanceof TokenUnavailable &&
        err.noTokenSince !== undefined && { noTokenSince: err.noTokenSince }),
    };
    return ApplicationFailure.create({
      type: FailureType.Retryable,
      message: err.message,
      details: [details],
      nextRetryDelay: err instanceof SupplierError ? err.retryAfterMs : undefined,
    });
  }
  if (err instanceof SupplierError) {
    const details: SupplierFailureDetails = {
      endpoint,
      code: err.code,
      message: err.supplierMessage,
      requestId: err.requestId,
      ...(err.retryAfterMs !== undefined && { retryAfterMs: err.retryAfterMs }),
    };
    const type =
      err.kind === 'business'
        ? FailureType.Business
        : err.kind === 'fatal'
          ? FailureType.Fatal
          : FailureType.Retryable;
    return ApplicationFailure.create({
      type,
      message: err.message,
      details: [details],
      nonRetryable: type !== FailureType.Retryable,
      ...(err.retryAfterMs !== undefined && { nextRetryDelay: err.retryAfterMs }),
    });
  }
  if (err instanceof SupplierTransportError) {
    const details: SupplierFailureDetails = { endpoint, message: err.message };
    return ApplicationFailure.create({
      type: err.ambiguous ? FailureType.Ambiguous : FailureType.Retryable,
      message: err.message,
      details: [details],
      nonRetryable: err.ambiguous,
    });
  }
  if (err instanceof SupplierRequestInvalid) {
    const details: SupplierFailureDetails = { endpoint, message: formatIssues(err.issues) };
    return ApplicationFailure.create({
      type: FailureType.InvalidRequest,
      message: err.message,
      details: [details],
      nonRetryable: true,
    });
  }
  if (err instanceof SupplierResponseInvalid) {
    const details: SupplierFailureDetails = {
      endpoint,
      message: err.message,
      requestId: err.requestId,
    };
    return ApplicationFailure.create({
      type: FailureType.Fatal,
      message: err.message,
      details: [details],
      nonRetryable: true,
    });
  }
  return err;
}

/** The supplier knows no account with this API key (getAccessToken answered 1601000). */
function keyRefused(err: SupplierError | SupplierTransportError): boolean {
  return (
    err instanceof SupplierError &&
    err.endpoint === getAccessToken.name &&
    err.code === SupplierCode.UserNotFound
  );
}

/** A success answer dropflow cannot go on with: a person must look (NEEDS_ATTENTION). */
export function unusableAnswer(
  endpoint: string,
  what: string,
  requestId?: string,
  type: FailureType = FailureType.Fatal,
): ApplicationFailure {
  const details: SupplierFailureDetails = {
    endpoint,
    message: `the supplier answered ${what}`,
    ...(requestId !== undefined && { requestId }),
  };
  return ApplicationFailure.create({
    type,
    message: `${endpoint}: the supplier answered ${what}`,
    details: [details],
    nonRetryable: true,
  });
}

/** addCartConfirm answered success for orders not intercepted, yet named no shipment. */
export function confirmedWithoutShipmentFailure(requestId?: string): ApplicationFailure {
  const type = FailureType.ConfirmedWithoutShipment;
  return unusableAnswer('addCartConfirm', CONFIRMED_WITHOUT_SHIPMENT, requestId, type);
}
