/**
 * What the tracking sweeper remembers from one sweep to the next, for the few orders that need
 * it: those the supplier did not list (since when, and in how many sweeps in a row), the last news
 * each order was sent (not sent again while it still applies), and when an order was last flagged
 * as unmoved (the next flag waits another full period). Everything else a sweep reads afresh from
 * visibility and the supplier. At most MEMORY_LIMIT orders are remembered, so a sweep's input and
 * result stay small whatever the number of orders. Pure functions, sandbox-safe.
 */

export interface Watch {
  /** The sweep that last listed the order. */
  seen: number;
  /** When (epoch ms) the first of the sweeps in a row that did not find the order ran. */
  missingSince?: number;
  /** How many sweeps in a row did not find it. */
  missingSweeps?: number;
  /** The messageId of the last news the order was sent. */
  told?: string;
  /** When (epoch ms) the order was last flagged as unmoved. */
  flaggedAt?: number;
}

export interface SweepMemory {
  /** The number of the latest sweep. */
  sweep: number;
  /** By workflow id. */
  watches: Record<string, Watch>;
}

/** Orders remembered at most; the least useful are forgotten first (see `bounded`). */
export const MEMORY_LIMIT = 2_000;

export function emptyMemory(): SweepMemory {
  return { sweep: 0, watches: {} };
}

/** The memory in an earlier sweep's result (what the schedule hands the next sweep), if any. */
export function memoryIn(result: unknown): SweepMemory | undefined {
  if (typeof result !== 'object' || result === null || !('memory' in result)) return undefined;
  const memory = result.memory;
  if (typeof memory !== 'object' || memory === null) return undefined;
  const { sweep, watches } = memory as { sweep?: unknown; watches?: unknown };
  if (typeof sweep !== 'number' || typeof watches !== 'object' || watches === null)
    return undefined;
  return { sweep, watches: watches as Record<string, Watch> };
}

/** The watch itself, or undefined when it holds nothing worth remembering. */
export function kept(watch: Watch): Watch | undefined {
  const worth =
    watch.missingSince !== undefined || watch.told !== undefined || watch.flaggedAt !== undefined;
  return worth ? watch : undefined;
}

/** Remembers `watch` for the order, or forgets the order when there is nothing to remember. */
export function remember(memory: SweepMemory, workflowId: string, watch: Watch | undefined): void {
  if (watch === undefined) Reflect.deleteProperty(memory.watches, workflowId);
  else memory.watches[workflowId] = watch;
}

/**
 * At the end of a sweep: the orders it did not list have left the tracked stages (finished,
 * cancelled, or waiting for a person); only their unmoved flags still in their period are kept, so
 * that an order resumed by an operator is not flagged again before another full period.
 */
export function afterSweep(memory: SweepMemory, now: number, staleAfterMs: number): SweepMemory {
  const watches: Record<string, Watch> = {};
  for (const [workflowId, watch] of Object.entries(memory.watches)) {
    if (watch.seen === memory.sweep) {
      watches[workflowId] = watch;
    } else if (watch.flaggedAt !== undefined && now - watch.flaggedAt < staleAfterMs) {
      watches[workflowId] = { seen: watch.seen, flaggedAt: watch.flaggedAt };
    }
  }
  return bounded({ sweep: memory.sweep, watches });
}

/**
 * At most MEMORY_LIMIT orders. Kept first: unmoved flags (latest first: forgetting one only lets
 * its order be flagged again sooner), then orders the supplier did not list (longest first: they
 * are flagged soonest and then leave, making room for the rest), then the last news sent (a
 * forgotten one may be sent once more, which the order ignores by its messageId).
 */
export function bounded(memory: SweepMemory, limit = MEMORY_LIMIT): SweepMemory {
  const entries = Object.entries(memory.watches);
  if (entries.length <= limit) return memory;
  const order = ([idA, a]: [string, Watch], [idB, b]: [string, Watch]): number =>
    classOf(a) - classOf(b) || keyOf(a) - keyOf(b) || (idA < idB ? -1 : idA > idB ? 1 : 0);
  const watches = Object.fromEntries(entries.sort(order).slice(0, limit));
  return { sweep: memory.sweep, watches };
}

const classOf = (w: Watch): number =>
  w.flaggedAt !== undefined ? 0 : w.missingSince !== undefined ? 1 : 2;

const keyOf = (w: Watch): number =>
  w.flaggedAt !== undefined
    ? -w.flaggedAt
    : w.missingSince !== undefined
      ? w.missingSince
      : -w.seen;
