/**
 * Authentication (docs/supplier-api.md §3, §4.2): token issue, 24-hour caching, refresh, logout,
 * and the token endpoints' own limits (tokenLimits.ts): getAccessToken once per the account's
 * `tokenIntervalSeconds`, refreshAccessToken `refreshesPerMinute` per account.
 */
import { randomBytes } from 'node:crypto';
import { getAccessToken, logout, refreshAccessToken, SupplierCode } from 'dropflow/supplier';
import { SandboxError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import type { IssuedTokens, SandboxAccount } from '../state.js';

export function registerAuthRoutes(r: SandboxRouter): void {
  const sb = r.sandbox;

  r.servePublic(
    getAccessToken,
    (body) => (typeof body.apiKey === 'string' ? sb.accountByApiKey(body.apiKey) : undefined),
    ({ apiKey }) => {
      const account = sb.accountByApiKey(apiKey);
      if (!account) throw new SandboxError(SupplierCode.UserNotFound, 'User not find');
      const { tokenIntervalSeconds } = sb.settingsFor(account.openId);
      if (!sb.tokenLimits.allowObtain(account.openId, tokenIntervalSeconds, sb.now())) {
        throw tooMany(sb, account, `getAccessToken once per ${tokenIntervalSeconds} s`);
      }
      sb.count(account.openId, (s) => (s.tokensObtained += 1));
      const t = account.tokens;
      // Repeated calls within the cache window return the same tokens (the documented cache), as
      // long as the access token has not expired (POST /__sandbox/tokens/expire).
      const cached =
        t && sb.now() - t.issuedAt < sb.options.tokenCacheMs && t.accessExpiresAt > sb.now();
      const tokens = cached ? t : issue(sb, account);
      return { openId: Number(account.openId), ...record(tokens) };
    },
  );

  r.servePublic(
    refreshAccessToken,
    (body) => accountOfRefreshToken(sb, body.refreshToken),
    ({ refreshToken }) => {
      const holder = accountOfRefreshToken(sb, refreshToken);
      const perMinute = sb.options.refreshesPerMinute;
      if (holder && !sb.tokenLimits.allowRefresh(holder.openId, perMinute, sb.now())) {
        throw tooMany(sb, holder, `refreshAccessToken ${perMinute} per minute`);
      }
      const account = accountByRefreshToken(sb, refreshToken);
      if (!account?.tokens) {
        throw new SandboxError(SupplierCode.RefreshFailed, 'Refresh token is failure');
      }
      sb.count(account.openId, (s) => (s.tokensRefreshed += 1));
      const t = account.tokens;
      const fresh =
        sb.now() - t.issuedAt < sb.options.tokenCacheMs && t.accessExpiresAt > sb.now()
          ? t
          : issue(sb, account, t.refreshToken, t.refreshExpiresAt);
      return record(fresh);
    },
  );

  r.serve(logout, (_input, account) => {
    delete account.tokens;
    return true;
  });
}

function tooMany(sb: Sandbox, account: SandboxAccount, limit: string): SandboxError {
  sb.count(account.openId, (s) => (s.rateLimited += 1));
  return new SandboxError(
    SupplierCode.TooManyRequests,
    `Too Many Requests, the request frequency exceeds the limit of the account (${limit})`,
  );
}

/** The account whose refresh token this is, valid or not: whose calls and limits it spends. */
function accountOfRefreshToken(sb: Sandbox, token: unknown): SandboxAccount | undefined {
  if (typeof token !== 'string') return undefined;
  return Object.values(sb.state.accounts).find((a) => a.tokens?.refreshToken === token);
}

/** The account whose refresh token this is, while it is valid. */
function accountByRefreshToken(sb: Sandbox, token: unknown): SandboxAccount | undefined {
  if (typeof token !== 'string') return undefined;
  return Object.values(sb.state.accounts).find(
    (a) => a.tokens?.refreshToken === token && a.tokens.refreshExpiresAt > sb.now(),
  );
}

function issue(
  sb: Sandbox,
  account: SandboxAccount,
  refreshToken?: string,
  refreshExpiresAt?: number,
): IssuedTokens {
  const now = sb.now();
  const tokens: IssuedTokens = {
    accessToken: `at_${randomBytes(24).toString('hex')}`,
    refreshToken: refreshToken ?? `rt_${randomBytes(24).toString('hex')}`,
    issuedAt: now,
    accessExpiresAt: now + sb.options.accessTokenLifetimeMs,
    refreshExpiresAt: refreshExpiresAt ?? now + sb.options.refreshTokenLifetimeMs,
  };
  account.tokens = tokens;
  return tokens;
}

/** ISO 8601 with offset, as the supplier writes dates of the token record. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

function record(t: IssuedTokens) {
  return {
    accessToken: t.accessToken,
    accessTokenExpiryDate: iso(t.accessExpiresAt),
    refreshToken: t.refreshToken,
    refreshTokenExpiryDate: iso(t.refreshExpiresAt),
    createDate: iso(t.issuedAt),
  };
}
