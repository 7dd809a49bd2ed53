/**
 * How a store's API refused or failed a call, named once for both platforms' clients, the
 * outbound delivery and `dropflow store test`.
 */
export const StoreFailure = {
  /** The token or key is wrong or revoked (HTTP 401). */
  Auth: 'auth',
  /** The token lacks an access scope, or the key a permission. */
  Scope: 'scope',
  /** The API version is not one the platform serves. */
  Version: 'version',
  /** The platform's rate limit: try again after `retryAfterMs`. */
  Throttled: 'throttled',
  /** The platform answered 5xx, or not at all. */
  Unavailable: 'unavailable',
  /** The store order (or the shop) is not there. */
  NotFound: 'not_found',
  /** The platform refused the request's content (user errors). */
  Rejected: 'rejected',
} as const;
export type StoreFailure = (typeof StoreFailure)[keyof typeof StoreFailure];

/** Failures a person must mend at the store: tracking waits for them, named. */
export const STORE_REFUSALS: readonly StoreFailure[] = [
  StoreFailure.Auth,
  StoreFailure.Scope,
  StoreFailure.Version,
];

/**
 * The longest message a store error keeps: it quotes the store's own words, which the merchant's
 * site chooses, and it goes into the order's history, its status and the logs.
 */
export const STORE_MESSAGE_MAX = 300;

export class StoreApiError extends Error {
  override readonly name = 'StoreApiError';
  constructor(
    readonly kind: StoreFailure,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    const plain = message.replace(/[\u0000-\u001f\u007f]+/g, ' ');
    super(plain.length > STORE_MESSAGE_MAX ? `${plain.slice(0, STORE_MESSAGE_MAX)}…` : plain);
  }

  get refused(): boolean {
    return STORE_REFUSALS.includes(this.kind);
  }
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * A network failure of a store call, or an answer over the cap of `maxBytes`, as an `unavailable`
 * error naming the host, never the URL.
 */
export function unreachable(
  host: string,
  err: unknown,
  timeoutMs: number,
  maxBytes: number,
): StoreApiError {
  let code: string | undefined;
  for (
    let c: unknown = err, depth = 0;
    depth < 4 && typeof c === 'object' && c !== null;
    depth += 1
  ) {
    const { code: k, cause } = c as { code?: unknown; cause?: unknown };
    if (typeof k === 'string') {
      code = k;
      break;
    }
    c = cause;
  }
  const aborted =
    (err as { name?: string }).name === 'TimeoutError' || TIMEOUT_CODES.has(code ?? '');
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
    return new StoreApiError(
      StoreFailure.Unavailable,
      `${host}: an answer over the cap of ${maxBytes} bytes; not read further`,
    );
  return new StoreApiError(
    StoreFailure.Unavailable,
    aborted
      ? `${host}: no answer within ${timeoutMs / 1000} s`
      : `${host}: not reached (${code ?? String(err)})`,
  );
}
