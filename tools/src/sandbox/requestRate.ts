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
  /** Each account's recent requests, in the order they came (a late-parsed one goes in its place). */
  private readonly recent = new Map<string, WindowEntry[]>();
  private readonly busiest = new Map<string, WindowEntry[]>();

  /**
   * Records a request of `openId` that came at `at`; returns the most requests in one window that
   * holds it (a request stamped on arrival may be recorded after one that came later).
   */
  record(openId: string, at: number, path = ''): number {
    const entries = this.recent.get(openId) ?? [];
    let i = entries.length;
    while (i > 0 && entries[i - 1]!.at > at) i -= 1;
    entries.splice(i, 0, { at, path });
    const last = entries.at(-1)!.at;
    const kept = entries.filter((e) => e.at > last - 2 * WINDOW_MS);
    this.recent.set(openId, kept);
    let best: WindowEntry[] = [];
    for (const end of kept) {
      if (end.at < at || end.at >= at + WINDOW_MS) continue;
      const window = kept.filter((e) => e.at > end.at - WINDOW_MS && e.at <= end.at);
      if (window.length > best.length) best = window;
    }
    this.busiest.set(openId, best);
    return best.length;
  }

  /** The busiest window that held the account's last recorded request. */
  window(openId: string): readonly WindowEntry[] {
    return this.busiest.get(openId) ?? [];
  }

  /** Forgets the account's window: a measure started now counts only requests from now on. */
  forget(openId: string): void {
    this.recent.delete(openId);
    this.busiest.delete(openId);
  }
}
