/** Helpers of the account's long-running workflows (inbox, catalogue events). Sandbox-safe. */
import { workflowInfo } from '@temporalio/workflow';

/** Continue-as-new well before the history gets heavy, even if the server has not suggested it. */
const HISTORY_EVENTS_LIMIT = 5_000;

export function shouldContinueAsNew(limit = HISTORY_EVENTS_LIMIT): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > limit;
}

/** Appends and keeps only the newest `limit` items; returns how many were let go. */
export function pushBounded<T>(list: T[], item: T, limit: number): number {
  list.push(item);
  const over = Math.max(0, list.length - limit);
  if (over > 0) list.splice(0, over);
  return over;
}

/**
 * A list bounded in count and in size (characters of its JSON), oldest first. Workflow state is
 * carried through continue-as-new as one payload, which Temporal limits (2 MB by default): the
 * bounds keep it well below that however large single events are. The newest item always stays.
 */
export class BoundedList<T> {
  readonly items: T[];
  private sizes: number[];
  private total: number;

  constructor(
    items: readonly T[],
    private readonly maxItems: number,
    private readonly maxChars: number,
  ) {
    this.items = [...items];
    this.sizes = this.items.map(sizeOf);
    this.total = this.sizes.reduce((a, b) => a + b, 0);
  }

  get length(): number {
    return this.items.length;
  }

  /**
   * Appends; returns the oldest items that had to go to keep the bounds (oldest first), so the
   * caller can count and report every one of them.
   */
  push(item: T): T[] {
    this.items.push(item);
    const size = sizeOf(item);
    this.sizes.push(size);
    this.total += size;
    const dropped: T[] = [];
    while (
      this.items.length > 1 &&
      (this.items.length > this.maxItems || this.total > this.maxChars)
    ) {
      dropped.push(this.items.shift()!);
      this.total -= this.sizes.shift()!;
    }
    return dropped;
  }

  /** Removes the items for which `gone` holds; returns them. */
  remove(gone: (item: T) => boolean): T[] {
    const removed: T[] = [];
    for (let i = this.items.length - 1; i >= 0; i -= 1) {
      if (!gone(this.items[i]!)) continue;
      removed.unshift(...this.items.splice(i, 1));
      this.total -= this.sizes.splice(i, 1)[0]!;
    }
    return removed;
  }
}

function sizeOf(item: unknown): number {
  return JSON.stringify(item).length;
}
