/**
 * When an access token is renewed, and how often the supplier lets an account ask: getAccessToken
 * about once per 5 minutes, refreshAccessToken 5 per minute. Sandbox-safe: no imports.
 */

/** Renew this long before the access token's expiry, or at 90% of a shorter lifetime. */
const REFRESH_MARGIN_MS = 60 * 60 * 1000;

/** The documented spacing of getAccessToken per account. */
export const OBTAIN_INTERVAL_MS = 5 * 60 * 1000;

/** refreshAccessToken is allowed 5 per minute: one every 12 seconds never exceeds it. */
export const REFRESH_INTERVAL_MS = 12_000;

/** When a token obtained at `obtainedAt` and expiring at `expiresAt` should be renewed. */
export function renewalDue(obtainedAt: number, expiresAt: number): number {
  const lifetime = expiresAt - obtainedAt;
  return expiresAt - Math.min(REFRESH_MARGIN_MS, lifetime * 0.1);
}
