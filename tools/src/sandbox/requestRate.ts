/**
 * The highest number of requests an account sent in any 1 s, as the supplier sees them: a sliding
 * window on the sandbox's clock, half-open — a request at t shares a window with those after
 * t − 1000 ms, not with one exactly 1000 ms earlier. Every request of the account counts, refused
 * ones included (they were sent), except the token calls, which have a limit of their own
 * (docs/supplier-api.md §4.2). Kept in memory; the peak itself is in the account's stats.
 */
const WINDOW_MS = 1_000;

/** A request in the window: when it came (epoch ms) and to which endpoint. */
export interface WindowEntry {
  at: number;
  path: string;
}

export class RequestRate {
  private readonly recent = new Map<string, WindowEntry[]>();

  /** Records a request of `openId` at `now`; returns the requests in the window ending at it. */
  record(openId: string, now: number, path = ''): number {
    const since = now - WINDOW_MS;
    const window = (this.recent.get(openId) ?? []).filter((e) => e.at > since);
    window.push({ at: now, path });
    this.recent.set(openId, window);
    return window.length;
  }

  /** The requests of the window that ended with the account's last one. */
  window(openId: string): readonly WindowEntry[] {
    return this.recent.get(openId) ?? [];
  }

  /** Forgets the account's window: a measure started now counts only requests from now on. */
  forget(openId: string): void {
    this.recent.delete(openId);
  }
}
