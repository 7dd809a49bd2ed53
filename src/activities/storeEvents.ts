/**
 * Delivering one store event (src/client/storeEventTypes.ts) to STORE_EVENTS_URL, for the order
 * and dispute workflows' outbox (src/workflows/storeEventOutbox.ts). One attempt per activity
 * call: the workflow decides when to try again, so it can show attempts and the last answer.
 */
import type { StoreEvent } from '../client/storeEventTypes.js';

export interface StoreEventsOptions {
  /** Where to POST; without one every event answers `off` and the workflow stops emitting. */
  url?: string;
  /** `whsec_<base64>`; several, space-separated, while a secret is rotated (each one signs). */
  secret?: string;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** The first retry's delay (default 5 s); doubling up to `retryMaxMs` (default 1 h). */
  retryFirstMs?: number;
  retryMaxMs?: number;
}

export interface DeliverStoreEventInput {
  event: StoreEvent;
  /** 1 for the first attempt at this event. */
  attempt: number;
}

export type DeliveryResult =
  | { outcome: 'delivered'; status: number }
  /** This worker has no STORE_EVENTS_URL. */
  | { outcome: 'off' }
  | {
      outcome: 'failed';
      /** The store's HTTP status, when it answered. */
      status?: number;
      /** What went wrong, for the operator: no URL path or query, no secret. */
      message: string;
      /** When to try again: the backoff for `attempt`, or the store's Retry-After (bounded). */
      retryInMs: number;
    };

export function storeEventActivities(_opts: StoreEventsOptions = {}) {
  return {
    // eslint-disable-next-line @typescript-eslint/require-await
    async deliverStoreEvent(_input: DeliverStoreEventInput): Promise<DeliveryResult> {
      throw new Error('not built yet');
    },
  };
}

export type StoreEventActivities = ReturnType<typeof storeEventActivities>;
