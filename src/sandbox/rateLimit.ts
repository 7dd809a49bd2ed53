/**
 * The supplier's per-account limits: at most `perSecond` accepted calls of one class in any
 * one-second window. Refused calls do not count. A small tolerance absorbs network jitter between
 * callers that pace themselves at exactly the limit.
 */
const WINDOW_MS = 1_000;
const JITTER_TOLERANCE_MS = 50;

export class RateLimiter {
  private readonly accepted = new Map<string, number[]>();

  constructor(private readonly perSecond: (rateClass: string) => number) {}

  /** Records the call and returns true when it is within the limit. */
  allow(account: string, rateClass: string, now = Date.now()): boolean {
    const limit = this.perSecond(rateClass);
    if (limit <= 0) return true;
    const key = `${account}|${rateClass}`;
    const since = now - (WINDOW_MS - JITTER_TOLERANCE_MS);
    const recent = (this.accepted.get(key) ?? []).filter((t) => t > since);
    if (recent.length >= limit) {
      this.accepted.set(key, recent);
      return false;
    }
    recent.push(now);
    this.accepted.set(key, recent);
    return true;
  }
}
