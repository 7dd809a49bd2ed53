/**
 * One signed POST of one store event to the store: what the delivery activity and
 * `dropflow events replay` both send. Signing (src/storeEvents/signing.ts) follows the Standard
 * Webhooks specification with its own library.
 */
import type { StoreEvent } from '../client/storeEventTypes.js';

export interface StoreTarget {
  url: string;
  /** `whsec_<base64>`; several, space-separated, during a rotation (each one signs). */
  secret: string;
  /** Per request (default 10 s). */
  timeoutMs?: number;
}

export type SendResult =
  | { ok: true; status: number }
  | {
      ok: false;
      /** The store's HTTP status, when it answered. */
      status?: number;
      /** For the operator: the store's host and what happened; never the secret or URL query. */
      message: string;
      /** The store's Retry-After, in ms, when it sent one. */
      retryAfterMs?: number;
    };

// eslint-disable-next-line @typescript-eslint/require-await
export async function sendStoreEvent(_target: StoreTarget, _event: StoreEvent): Promise<SendResult> {
  throw new Error('not built yet');
}
