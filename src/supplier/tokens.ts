/**
 * The token lifecycle of open-api.md §5: the API key buys an access and a refresh token; the
 * access token is refreshed before its returned expiry; when the refresh fails (1600003) or the
 * refresh token has expired, the API key is used again. One cache per account and process, shared
 * by every client; concurrent callers wait for one exchange. Tokens, the key and openId are never
 * logged.
 *
 * Token calls are spaced per account (TOKEN_CALL_INTERVAL_MS), counted from the previous call's
 * answer as well as its start: the supplier counts arrivals, and a call held up on its way (a new
 * connection, a busy event loop) would otherwise arrive closer to the next one than the spacing.
 * A 1600200 from a token endpoint (another process of the account took its slot) is waited out
 * and the call sent again, a bounded number of times.
 */
import { createHash } from 'node:crypto';
import { getAccessToken, logout, refreshAccessToken, TokenRecord } from './api/auth.js';
import type { Endpoint } from './endpoint.js';
import { openEnvelope } from './envelope.js';
import { SupplierCode, SupplierError } from './errors.js';
import { SupplierHttp, type HttpOptions } from './http.js';

/** Refresh this long before the access token's expiry, or at 90% of a shorter lifetime. */
const REFRESH_MARGIN_MS = 60 * 60 * 1000;
/**
 * getAccessToken is documented at about once per 5 minutes and refreshAccessToken at 5 per
 * minute; one token call per 15 seconds per account and process stays far below both, and a
 * healthy process makes one token call per access-token lifetime.
 */
export const TOKEN_CALL_INTERVAL_MS = 15_000;
/** Times a token call refused with 1600200 is sent again before the error is the caller's. */
export const TOKEN_CALL_RATE_LIMIT_RETRIES = 2;

interface Tokens {
  openId: string | undefined;
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string;
  refreshExpiresAt: number;
  obtainedAt: number;
}

export class TokenManager {
  private tokens: Tokens | undefined;
  private pending: Promise<Tokens> | undefined;
  private readonly pacer: TokenCallPacer;

  constructor(
    private readonly http: SupplierHttp,
    private readonly apiKey: string,
    tokenCallIntervalMs = TOKEN_CALL_INTERVAL_MS,
  ) {
    this.pacer = new TokenCallPacer(tokenCallIntervalMs);
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

  /** Forget a token the supplier refused (1600001), so the next call obtains a new one. */
  invalidate(accessToken: string): void {
    if (this.tokens?.accessToken === accessToken) this.tokens = undefined;
  }

  /** Expire both tokens at the supplier. */
  async logout(): Promise<void> {
    if (!this.tokens) return;
    const t = await this.current();
    this.tokens = undefined;
    await this.paced(() => this.expire(t.accessToken));
  }

  private current(): Promise<Tokens> {
    const t = this.tokens;
    if (t && Date.now() < refreshAt(t)) return Promise.resolve(t);
    this.pending ??= this.renew(t).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async renew(old: Tokens | undefined): Promise<Tokens> {
    if (old && Date.now() < old.refreshExpiresAt) {
      try {
        const r = await this.paced(() =>
          this.exchange(refreshAccessToken, { refreshToken: old.refreshToken }),
        );
        return this.keep(r, old.openId);
      } catch (err) {
        if (!(err instanceof SupplierError && err.code === SupplierCode.RefreshFailed)) throw err;
      }
    }
    const r = await this.paced(() => this.exchange(getAccessToken, { apiKey: this.apiKey }));
    return this.keep(r, undefined);
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

  private keep(r: TokenRecord, openId: string | undefined): Tokens {
    const t: Tokens = {
      openId: r.openId ?? openId,
      accessToken: r.accessToken,
      accessExpiresAt: Date.parse(r.accessTokenExpiryDate),
      refreshToken: r.refreshToken,
      refreshExpiresAt: Date.parse(r.refreshTokenExpiryDate),
      obtainedAt: Date.now(),
    };
    this.tokens = t;
    return t;
  }

  private async exchange(
    ep: Endpoint,
    input: Record<string, unknown>,
    token?: string,
  ): Promise<TokenRecord> {
    return openEnvelope(ep.name, await this.http.send(ep, input, token), TokenRecord).data;
  }

  private async expire(accessToken: string): Promise<void> {
    openEnvelope(logout.name, await this.http.send(logout, {}, accessToken), logout.response);
  }
}

/**
 * Token-call slots of one account in this process, handed out in call order: a call starts an
 * interval after the previous one started and after its answer came back (or later, when the
 * supplier asked for more).
 */
class TokenCallPacer {
  private next = 0;

  constructor(private readonly intervalMs: number) {}

  async take(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /** The call that took the last slot was answered (or failed) now. */
  answered(waitMs = 0): void {
    this.next = Math.max(this.next, Date.now() + Math.max(this.intervalMs, waitMs));
  }
}

function refreshAt(t: Tokens): number {
  const lifetime = t.accessExpiresAt - t.obtainedAt;
  return t.accessExpiresAt - Math.min(REFRESH_MARGIN_MS, lifetime * 0.1);
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
