/**
 * The token endpoints' own per-account limits, besides the 1-per-second limit of every token call:
 * getAccessToken about once per 5 minutes, refreshAccessToken 5 per minute. Only calls that were
 * answered count. Kept in memory: a restarted sandbox forgets them.
 */
const MINUTE_MS = 60_000;
/** As in rateLimit.ts: callers pacing themselves at exactly the limit meet network jitter. */
const JITTER_TOLERANCE_MS = 50;

export class TokenLimits {
  private readonly lastObtained = new Map<string, number>();
  private readonly refreshed = new Map<string, number[]>();

  /** Whether getAccessToken may be answered now; records it when it may. */
  allowObtain(openId: string, intervalSeconds: number, now: number): boolean {
    const last = this.lastObtained.get(openId);
    if (
      intervalSeconds > 0 &&
      last !== undefined &&
      now - last < intervalSeconds * 1_000 - JITTER_TOLERANCE_MS
    ) {
      return false;
    }
    this.lastObtained.set(openId, now);
    return true;
  }

  /** Whether refreshAccessToken may be answered now; records it when it may. */
  allowRefresh(openId: string, perMinute: number, now: number): boolean {
    const since = now - (MINUTE_MS - JITTER_TOLERANCE_MS);
    const recent = (this.refreshed.get(openId) ?? []).filter((t) => t > since);
    const allowed = perMinute <= 0 || recent.length < perMinute;
    if (allowed) recent.push(now);
    this.refreshed.set(openId, recent);
    return allowed;
  }
}
