/**
 * The store branch of event delivery: an order that came from a connected store (its input has a
 * `store` reference) has its events written to that store order through the platform's API
 * (storeWrite.ts) instead of the signed POST to STORE_EVENTS_URL. A store that
 * refuses (token revoked, scope missing, version gone) is a named reason, retried at least every
 * `refusedRetryMaxMs`, so that delivery goes on by itself once the store is mended.
 */
import { StoreApiError, type StoreFailure } from '../store/apiError.js';
import { storeOrderNumber, type StoreOrderRef } from '../store/contract.js';
import type { StoreDirectory } from '../accounts/contract.js';
import { writeToStore, type StoreWrite } from './storeWrite.js';
import type { StoreEvent } from './contract.js';

/** The connections a worker knows, by id (the account registry's). */
export type StoreLookup = Pick<StoreDirectory, 'store'>;

/** Why a store delivery waits: shown in the order's status and counted in the metric. */
export const StoreWaitReason = {
  Refused: 'store-refused',
  Throttled: 'store-throttled',
  Unavailable: 'store-unavailable',
  OrderMissing: 'store-order-missing',
  Rejected: 'store-rejected',
  UnknownConnection: 'store-connection-unknown',
  /** The order is not the connection's: another account's, or not under its order number. */
  NotTheConnectionsOrder: 'store-not-its-order',
} as const;
export type StoreWaitReason = (typeof StoreWaitReason)[keyof typeof StoreWaitReason];

const REASON_OF: Record<StoreFailure, StoreWaitReason> = {
  auth: StoreWaitReason.Refused,
  scope: StoreWaitReason.Refused,
  version: StoreWaitReason.Refused,
  throttled: StoreWaitReason.Throttled,
  unavailable: StoreWaitReason.Unavailable,
  not_found: StoreWaitReason.OrderMissing,
  rejected: StoreWaitReason.Rejected,
};

/** A refused store is tried again at least this often (default 5 minutes). */
export const STORE_REFUSED_RETRY_MAX_MS = 300_000;

export type StoreDeliveryOutcome =
  | { ok: true; write: StoreWrite }
  | { ok: false; reason: StoreWaitReason; message: string; status?: number; retryAfterMs?: number };

/**
 * Writes `event` of the order of `account` to its store order `ref`, once the connection is known
 * and the order is one the connection itself started: of its account, under its order number. The
 * reference is the order's input, so that check is what keeps one tenant's order from writing to
 * another's store with that store's credentials.
 */
export async function deliverToStore(
  stores: StoreLookup | undefined,
  ref: StoreOrderRef,
  event: StoreEvent,
  account: string,
): Promise<StoreDeliveryOutcome> {
  const conn = stores?.store(ref.connection);
  if (conn === undefined) {
    return {
      ok: false,
      reason: StoreWaitReason.UnknownConnection,
      message: `store connection ${ref.connection} is not in the registry: add it again (\`dropflow store add\`)`,
    };
  }
  if (conn.account !== account || event.orderNumber !== storeOrderNumber(conn.id, ref.orderId)) {
    return {
      ok: false,
      reason: StoreWaitReason.NotTheConnectionsOrder,
      message: `order ${event.orderNumber} of account ${account} did not come from store connection ${conn.id}: nothing is written to that store`,
    };
  }
  try {
    return { ok: true, write: await writeToStore(conn, ref, event) };
  } catch (err) {
    if (!(err instanceof StoreApiError)) throw err;
    return {
      ok: false,
      reason: REASON_OF[err.kind],
      message: err.refused
        ? `${err.message}; tracking waits until the store is mended (\`dropflow store test ${conn.id}\`)`
        : err.message,
      ...(err.status !== undefined && { status: err.status }),
      ...(err.retryAfterMs !== undefined && { retryAfterMs: err.retryAfterMs }),
    };
  }
}
