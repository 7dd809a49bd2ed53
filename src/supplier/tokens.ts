/**
 * The token lifecycle of docs/supplier-api.md §3, cached in this process: the API key buys an
 * access and a refresh token; the access token is refreshed before its returned expiry, and after
 * the supplier refused it (1600001); when the refresh fails (1600003) or the refresh token has
 * expired, the API key is used again. One cache per account and process, shared by every client;
 * concurrent callers wait for one exchange. Tokens, the key and openId are never logged.
 *
 * Workers and gateways share one token per account through the account's session workflow
 * (session/sessionTokens.ts); this cache serves the CLI's direct supplier commands and tests.
 *
 * Token calls are spaced per account (TOKEN_CALL_INTERVAL_MS, see tokenCallPacer.ts). A 1600200
 * from a token endpoint (another process of the account took its slot) is waited out and the call
 * sent again, a bounded number of times.
 */
import { createHash } from 'node:crypto';
import { SupplierCode, SupplierError } from './errors.js';
import { SupplierHttp, type HttpOptions } from './http.js';
import { TokenCallPacer } from './tokenCallPacer.js';
import { TokenExchange, type IssuedTokens } from './tokenExchange.js';
import type { TokenSource } from './tokenSource.js';
import { renewalDue } from './tokenTiming.js';

/**
 * getAccessToken is documented at about once per 5 minutes and refreshAccessToken at 5 per
 * minute; one token call per 15 seconds per account and process stays below the refresh limit,
 * and a healthy process makes one token call per access-token lifetime.
 */
export const TOKEN_CALL_INTERVAL_MS = 15_000;
/** Times a token call refused with 1600200 is sent again before the error is the caller's. */
export const TOKEN_CALL_RATE_LIMIT_RETRIES = 2;

interface Tokens extends IssuedTokens {
  obtainedAt: number;
  /** The supplier refused the access token: refresh it before the next use. */
  refused: boolean;
}

export class TokenManager implements TokenSource {
  private tokens: Tokens | undefined;
  private pending: Promise<Tokens> | undefined;
  private readonly pacer: TokenCallPacer;
  private readonly exchange: TokenExchange;

  constructor(http: SupplierHttp, apiKey: string, tokenCallIntervalMs = TOKEN_CALL_INTERVAL_MS) {
    this.pacer = new TokenCallPacer(tokenCallIntervalMs);
    this.exchange = new TokenExchange(http, apiKey);
  }

  /** Waits for this account's next token-call slot (direct token calls share it). */
  pace(): Promise<void> {
    return this.pacer.take();
  }

  /** A valid access token, exchanging or refreshing first when needed. */
  async accessToken(): Promise<string> {
    return (await this.current()).accessToken;
  }

  /** The account's openId (the webhook signing key), learned from getAccessToken. */
  async openId(): Promise<string> {
    let t = await this.current();
    if (t.openId === undefined) {
      this.tokens = undefined;
      t = await this.current();
    }
    if (t.openId === undefined) throw new Error('getAccessToken returned no openId');
    return t.openId;
  }

  /**
   * The supplier refused this access token (1600001): the next call refreshes it. The refresh
   * token is kept — refreshing spends the account's generous limit, obtaining its scarce one.
   */
  invalidate(accessToken: string): void {
    if (this.tokens?.accessToken === accessToken) this.tokens.refused = true;
  }

  /** Expire both tokens at the supplier. */
  async logout(): Promise<void> {
    if (!this.tokens) return;
    const t = await this.current();
    this.tokens = undefined;
    await this.paced(() => this.exchange.logout(t.accessToken));
  }

  private current(): Promise<Tokens> {
    const t = this.tokens;
    if (t && !t.refused && Date.now() < renewalDue(t.obtainedAt, t.accessExpiresAt)) {
      return Promise.resolve(t);
    }
    this.pending ??= this.renew(t).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async renew(old: Tokens | undefined): Promise<Tokens> {
    if (old && Date.now() < old.refreshExpiresAt) {
      try {
        const r = await this.paced(() => this.exchange.refresh(old.refreshToken));
        return this.keep({ ...r, openId: r.openId ?? old.openId });
      } catch (err) {
        if (!(err instanceof SupplierError && err.code === SupplierCode.RefreshFailed)) throw err;
      }
    }
    return this.keep(await this.paced(() => this.exchange.obtain()));
  }

  /** One token call in the account's next slot; a 1600200 is waited out (bounded). */
  private async paced<T>(call: () => Promise<T>): Promise<T> {
    for (let retries = 0; ; retries += 1) {
      await this.pacer.take();
      let waitMs: number | undefined;
      try {
        return await call();
      } catch (err) {
        const limited = err instanceof SupplierError && err.code === SupplierCode.TooManyRequests;
        if (!limited || retries >= TOKEN_CALL_RATE_LIMIT_RETRIES) throw err;
        waitMs = err.retryAfterMs;
      } finally {
        this.pacer.answered(waitMs);
      }
    }
  }

  private keep(r: IssuedTokens): Tokens {
    const t: Tokens = { ...r, obtainedAt: Date.now(), refused: false };
    this.tokens = t;
    return t;
  }
}

const managers = new Map<string, TokenManager>();

/** The process-wide token cache of one account at one supplier. */
export function tokenManagerFor(
  baseUrl: string,
  apiKey: string,
  options: { http?: HttpOptions; tokenCallIntervalMs?: number } = {},
): TokenManager {
  const key = `${baseUrl}|${createHash('sha256').update(apiKey).digest('hex')}`;
  let m = managers.get(key);
  if (!m) {
    m = new TokenManager(
      new SupplierHttp(baseUrl, options.http),
      apiKey,
      options.tokenCallIntervalMs,
    );
    managers.set(key, m);
  }
  return m;
}
