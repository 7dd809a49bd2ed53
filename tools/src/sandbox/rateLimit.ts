/**
 * The supplier's per-account limits: at most `perSecond` accepted calls of one class in any
 * one-second window. Refused calls do not count. A small tolerance absorbs network jitter between
 * callers that pace themselves at exactly the limit.
 *
 * With the account's "one budget" setting, every call but the token calls also counts against the
 * general (standard) limit: a batch query must fit both its own class's limit and the account's.
 */
import type { RateClass } from 'dropflow/supplier';

const WINDOW_MS = 1_000;
const JITTER_TOLERANCE_MS = 50;
const GENERAL: RateClass = 'standard';

export class RateLimiter {
  private readonly accepted = new Map<string, number[]>();

  constructor(
    private readonly perSecond: (rateClass: string, account: string) => number,
    /** Whether every request of the account spends its general limit. */
    private readonly oneBudget: (account: string) => boolean = () => false,
  ) {}

  /** Records the call and returns true when it is within the limit. */
  allow(account: string, rateClass: string, now = Date.now()): boolean {
    const classes =
      rateClass !== GENERAL && rateClass !== 'token' && this.oneBudget(account)
        ? [rateClass, GENERAL]
        : [rateClass];
    const since = now - (WINDOW_MS - JITTER_TOLERANCE_MS);
    const windows = classes.map((c) => {
      const key = `${account}|${c}`;
      const recent = (this.accepted.get(key) ?? []).filter((t) => t > since);
      this.accepted.set(key, recent);
      return { limit: this.perSecond(c, account), recent };
    });
    if (windows.some((w) => w.limit > 0 && w.recent.length >= w.limit)) return false;
    for (const w of windows) if (w.limit > 0) w.recent.push(now);
    return true;
  }
}
