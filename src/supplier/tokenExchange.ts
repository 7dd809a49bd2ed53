/**
 * The token endpoints themselves, without a cache or pacing: the API key buys an access and a
 * refresh token (with the account's openId), the refresh token buys a new access token, logout
 * expires both. Expiry dates come back as epoch milliseconds.
 */
import { getAccessToken, logout, refreshAccessToken, TokenRecord } from './api/auth.js';
import type { Endpoint } from './endpoint.js';
import { openEnvelope } from './envelope.js';
import { SupplierResponseInvalid } from './errors.js';
import type { SupplierHttp } from './http.js';

export interface IssuedTokens {
  /** Only getAccessToken names the account. */
  openId: string | undefined;
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string;
  refreshExpiresAt: number;
}

export class TokenExchange {
  constructor(
    private readonly http: SupplierHttp,
    private readonly apiKey: string,
  ) {}

  /** getAccessToken with the API key. */
  obtain(): Promise<IssuedTokens> {
    return this.exchange(getAccessToken, { apiKey: this.apiKey });
  }

  /** refreshAccessToken; fails with 1600003 when the refresh token is no longer good. */
  refresh(refreshToken: string): Promise<IssuedTokens> {
    return this.exchange(refreshAccessToken, { refreshToken });
  }

  /** Expires both tokens at the supplier. */
  async logout(accessToken: string): Promise<void> {
    openEnvelope(logout.name, await this.http.send(logout, {}, accessToken), logout.response);
  }

  private async exchange(ep: Endpoint, input: Record<string, unknown>): Promise<IssuedTokens> {
    const answer = await this.http.send(ep, input);
    const { data: r, requestId } = openEnvelope(ep.name, answer, TokenRecord);
    const accessExpiresAt = Date.parse(r.accessTokenExpiryDate);
    const refreshExpiresAt = Date.parse(r.refreshTokenExpiryDate);
    // Renewal is timed from these dates: a token without a readable one cannot be kept.
    const unreadable = [
      ...(Number.isNaN(accessExpiresAt) ? ['accessTokenExpiryDate'] : []),
      ...(Number.isNaN(refreshExpiresAt) ? ['refreshTokenExpiryDate'] : []),
    ];
    if (unreadable.length > 0) {
      const issues = unreadable.map((field) => ({ field, rule: 'must be a date' }));
      throw new SupplierResponseInvalid(ep.name, issues, requestId);
    }
    return {
      openId: r.openId,
      accessToken: r.accessToken,
      accessExpiresAt,
      refreshToken: r.refreshToken,
      refreshExpiresAt,
    };
  }
}
