/**
 * Where a SupplierClient gets the account's access token and openId. Two kinds: the process's own
 * cache (tokens.ts `TokenManager`: the CLI's direct supplier commands, the sandbox's tests, the
 * account's session workflow itself), and the account's one session shared by every worker and
 * gateway (session/sessionTokens.ts). Tokens and openId are never logged.
 */
import { SupplierTransportError } from './errors.js';
export interface TokenSource {
  /** A valid access token of the account. */
  accessToken(): Promise<string>;
  /** The account's openId (the webhook signing key). */
  openId(): Promise<string>;
  /** The supplier refused this token (1600001): the next `accessToken()` gives a renewed one. */
  invalidate(accessToken: string): void;
  /** Waits for this process's next slot for a token call sent directly (client.api.logout …). */
  pace(): Promise<void>;
}

/**
 * No access token could be had from the token source: the call itself was never sent. A transport
 * failure of the token's own way, so the activity reports the call as not sent, to be retried.
 */
export class TokenUnavailable extends SupplierTransportError {
  /** The supplier refuses the account's API key: no token can be had until it is mended. */
  readonly keyRefused: boolean;
  /** Since when the account has had no usable access token (ISO 8601), where known. */
  readonly noTokenSince: string | undefined;

  constructor(
    message: string,
    options?: { cause?: unknown; keyRefused?: boolean; noTokenSince?: string },
  ) {
    super('accessToken', message, false, undefined, options);
    this.keyRefused = options?.keyRefused === true;
    this.noTokenSince = options?.noTokenSince;
  }
}
