/**
 * Every supplier failure is classified here, once. Activities and workflows act on `kind`, never on
 * raw codes, except for business outcomes they handle by name (see `SupplierCode`).
 */
export const SupplierCode = {
  Success: 200,
  SystemBusy: 1600000,
  AuthenticationFailed: 1600001,
  RefreshFailed: 1600003,
  ParamError: 1600100,
  TooManyRequests: 1600200,
  /** The daily request quota is used up; it resets at 00:00 UTC. */
  QuotaUsedUp: 1600201,
  ParamErrorHttp400: 1600300,
  UserNotFound: 1601000,
  ConfirmFailed: 1603001,
  DuplicateOrder: 1603003,
  PayFailed: 1603101,
  InsufficientBalance: 1604000,
  BalancePaymentRestricted: 1604001,
  ProductWebhookNotEnabled: 1606010,
  SubscriptionCapExceeded: 1606011,
  ProductNotSubscribable: 1606012,
  SubscriptionFailed: 1606013,
  LocalCallbackRefused: 1607001,
  WarehouseNotFound: 1608001,
  OrderNotFound: 803,
  NotPlatformLogistics: 804,
  CarrierNotSupported: 806,
  NotSandboxOrder: 811,
  SandboxOrderOfAnotherAccount: 818,
  StatusForbidsTrackNumber: 819,
  LogisticsInfoNotFound: 820,
  TrackNumberUpdateFailed: 821,
  OrderStatusChanged: 8002,
} as const;

/**
 * - retryable: try the same request again later (after `retryAfterMs` when given).
 * - reauthenticate: the token was refused; obtain a new one, then retry.
 * - business: an outcome the workflow handles (insufficient balance, duplicate order, …).
 * - fatal: retrying cannot help; a person must look (stage NEEDS_ATTENTION).
 */
export type SupplierErrorKind = 'retryable' | 'reauthenticate' | 'business' | 'fatal';

const BUSINESS_CODES: ReadonlySet<number> = new Set([
  SupplierCode.DuplicateOrder,
  // "Order pay fail": already paid, or the payId expired; the workflow settles which.
  SupplierCode.PayFailed,
  SupplierCode.InsufficientBalance,
  SupplierCode.BalancePaymentRestricted,
  SupplierCode.OrderStatusChanged,
  SupplierCode.LocalCallbackRefused,
  SupplierCode.ProductWebhookNotEnabled,
  SupplierCode.SubscriptionCapExceeded,
  SupplierCode.ProductNotSubscribable,
  SupplierCode.SubscriptionFailed,
  SupplierCode.CarrierNotSupported,
  SupplierCode.NotPlatformLogistics,
]);

const RATE_LIMIT_DELAY_MS = 1_000;
const BUSY_DELAY_MS = 5_000;

export interface Classification {
  kind: SupplierErrorKind;
  retryAfterMs?: number;
}

export function classify(
  code: number,
  message: string,
  endpoint = '',
  now = new Date(),
): Classification {
  // The same code means "already in My Products" there: an outcome, not a busy supplier.
  if (code === SupplierCode.SystemBusy && endpoint === 'addToMyProduct')
    return { kind: 'business' };
  switch (code) {
    case SupplierCode.TooManyRequests:
      return { kind: 'retryable', retryAfterMs: RATE_LIMIT_DELAY_MS };
    case SupplierCode.SystemBusy:
    case SupplierCode.TrackNumberUpdateFailed:
      return { kind: 'retryable', retryAfterMs: BUSY_DELAY_MS };
    case SupplierCode.AuthenticationFailed:
      return { kind: 'reauthenticate' };
  }
  // Some tiers have a daily request quota; its message is the only sign. Nothing helps before the
  // next UTC day.
  if (/daily|quota/i.test(message)) {
    const nextUtcDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    return { kind: 'retryable', retryAfterMs: nextUtcDay - now.getTime() };
  }
  if (BUSINESS_CODES.has(code)) return { kind: 'business' };
  return { kind: 'fatal' };
}

/** The supplier answered with an error envelope. */
export class SupplierError extends Error {
  override readonly name = 'SupplierError';
  readonly kind: SupplierErrorKind;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly endpoint: string,
    readonly code: number,
    readonly supplierMessage: string,
    readonly requestId: string | undefined,
    readonly httpStatus: number,
  ) {
    super(
      `${endpoint}: supplier error ${code} ${supplierMessage} (requestId ${requestId ?? 'none'})`,
    );
    const c = classify(code, supplierMessage, endpoint);
    this.kind = c.kind;
    this.retryAfterMs = c.retryAfterMs;
  }
}

/**
 * No usable answer: timeout, reset, 5xx, or a body that is not the envelope. `ambiguous` is true
 * when the request may have reached the supplier and acted (a request with side effects whose
 * response was lost): the caller must look the result up before trying again.
 */
export class SupplierTransportError extends Error {
  override readonly name = 'SupplierTransportError';
  readonly kind: SupplierErrorKind = 'retryable';

  constructor(
    readonly endpoint: string,
    message: string,
    readonly ambiguous: boolean,
    readonly httpStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(`${endpoint}: ${message}`, options);
  }
}

export interface FieldIssue {
  /** Path of the field, such as `products[0].vid`. */
  field: string;
  /** The rule it broke, such as `is required` or `must be at most 50 characters`. */
  rule: string;
}

export function formatIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
}

/** A request that breaks the supplier's documented rules; it was not sent. */
export class SupplierRequestInvalid extends Error {
  override readonly name = 'SupplierRequestInvalid';
  readonly kind: SupplierErrorKind = 'fatal';

  constructor(
    readonly endpoint: string,
    readonly issues: readonly FieldIssue[],
  ) {
    super(`${endpoint}: invalid request: ${formatIssues(issues)}`);
  }
}

/** The supplier answered success with data dropflow cannot read. */
export class SupplierResponseInvalid extends Error {
  override readonly name = 'SupplierResponseInvalid';
  readonly kind: SupplierErrorKind = 'fatal';

  constructor(
    readonly endpoint: string,
    readonly issues: readonly FieldIssue[],
    readonly requestId: string | undefined,
  ) {
    super(
      `${endpoint}: unexpected response (requestId ${requestId ?? 'none'}): ${formatIssues(issues)}`,
    );
  }
}
