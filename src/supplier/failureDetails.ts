/**
 * Failure types that supplier activities raise and workflow code acts on. Sandbox-safe constants.
 * Details of each failure: `SupplierFailureDetails`.
 */
export const FailureType = {
  /** Try again later (rate limit, busy, 5xx, a reset before the supplier could act). */
  Retryable: 'SupplierRetryable',
  /** The response was lost after the supplier may have acted: look it up before trying again. */
  Ambiguous: 'SupplierAmbiguous',
  /** An outcome the workflow handles by code (insufficient balance, duplicate order, 8002 …). */
  Business: 'SupplierBusiness',
  /** Retrying cannot help; a person must look. */
  Fatal: 'SupplierFatal',
  /** dropflow refused to send a request that breaks the supplier's rules. */
  InvalidRequest: 'SupplierInvalidRequest',
  /**
   * addCartConfirm answered success for orders not intercepted, yet named no shipment. The
   * supplier answers so for orders confirmed into a shipment that is paid (docs/supplier-api.md
   * §7.2): the workflow looks the order up rather than believe it; elsewhere it is Fatal.
   */
  ConfirmedWithoutShipment: 'SupplierConfirmedWithoutShipment',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/**
 * The end of a ConfirmedWithoutShipment failure's message: all that told it before it had a type
 * (a Fatal failure then).
 */
export const CONFIRMED_WITHOUT_SHIPMENT = 'confirmed without a shipmentsId';

export interface SupplierFailureDetails {
  endpoint: string;
  code?: number;
  message: string;
  requestId?: string;
  /** When to try again, where the supplier's answer says (a daily quota: its reset). */
  retryAfterMs?: number;
  /** No access token could be had, so the call itself was never sent. */
  noToken?: boolean;
  /** The account's API key is refused by the supplier (no token can be had). */
  keyRefused?: boolean;
  /** Since when the account has had no usable access token (ISO 8601). */
  noTokenSince?: string;
  /**
   * dropflow held the call back to keep the account within its rate (its next slot was further
   * away than an attempt may wait): never sent; `retryAfterMs` is when the slot comes.
   */
  paced?: boolean;
}

/** A supplier failure as the operator sees it. */
export interface FailureInfo {
  step: string;
  message: string;
  code?: number;
  requestId?: string;
}

/**
 * `step: message`, the step said once: a supplier failure's message already starts with its
 * endpoint (`payBalanceV2: Balance insufficient…`), which is often the step's name too.
 */
export function failureText(e: { step: string; message: string }): string {
  return e.message.startsWith(`${e.step}: `) ? e.message : `${e.step}: ${e.message}`;
}

/**
 * A workflow's answer to an action without the `<action> refused: ` it starts with, for a line
 * that names the action already (`approve-payment` and `approvePayment` are the same action).
 */
export function withoutActionPrefix(action: string, message: string): string {
  const m = /^([\w-]+) refused: /.exec(message);
  const plain = (s: string) => s.replace(/[^a-z]/gi, '').toLowerCase();
  return m !== null && plain(m[1]!) === plain(action) ? message.slice(m[0].length) : message;
}
