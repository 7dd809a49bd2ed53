/**
 * An account's slots on a fleet's grid, and whose each slot is (docs/accounts.md, "Why it holds
 * across processes"). Slot k lies at k × periodMs from the epoch, shifted by the account's phase.
 * A second at the supplier can hold tier + 1 calls only if two calls `tier` slots apart come less
 * than 1 s apart (any tier + 1 calls span at least `tier` slots).
 *
 * - **Own seconds** (at most `tier` processes): slot k belongs to the process that owns k mod tier,
 *   so two slots `tier` apart always belong to one process, which keeps its own calls there more
 *   than 1 s apart by its own clock (pacer.ts remembers when it sent each). Calls of two processes
 *   are at least tier + 1 slots apart, which leaves room for a call up to `catchUpMs` late, the
 *   network and the hosts' clocks. A fleet whose size does not divide the tier shares the seconds
 *   unevenly (at tier 6, four processes own 2, 2, 1 and 1 of each second's slots).
 * - **Shared seconds** (more processes than the tier): slot k belongs to process k mod n, so two
 *   processes share each pair of slots `tier` apart, and only the grid's slack keeps them apart.
 */

/** How the account's slots are laid out for a fleet of some size. */
export interface GridPace {
  readonly kind: 'own' | 'shared';
  /** From one of the account's slots to the next. */
  readonly periodMs: number;
  /** How late after its slot a call may still leave. */
  readonly catchUpMs: number;
}

/**
 * With own seconds, a process's call leaves at least this long after its own call `tier` slots
 * before it (more than 1 s: the window is half-open, and the network's delay varies a little).
 */
export const OWN_SECOND_MS = 1_030;

/** Room for the network and the hosts' clocks (NTP keeps them within a few ms) between processes. */
const NETWORK_MS = 30;

const OWN = { slackMs: 45, catchUpMs: 80 };
const SHARED = { slackMs: 50, catchUpMs: 20 };

/** The pace of the account's grid at `tier` calls a second, for a fleet of `of` senders. */
export function gridPace(of: number, tier: number): GridPace {
  const { slackMs, catchUpMs } = of <= tier ? OWN : SHARED;
  return { kind: of <= tier ? 'own' : 'shared', periodMs: (1_000 + slackMs) / tier, catchUpMs };
}

/** The index of the process whose slot k is, in a fleet of `of`. */
export function ownerOf(k: number, of: number, tier: number): number {
  return of <= tier ? mod(k, tier) % of : mod(k, of);
}

/**
 * A class of calls with a limit of its own (`perSecond`, the batch queries) takes only every n-th
 * slot: n slots span its own interval even for two processes' calls each as late as they may be,
 * and every process of the fleet gets its turn.
 */
export function classSlotEvery(of: number, tier: number, perSecond: number): number {
  const pace = gridPace(of, tier);
  const intervalMs = (1_000 + pace.catchUpMs + NETWORK_MS) / perSecond;
  for (let n = Math.max(1, Math.ceil(intervalMs / pace.periodMs - 1e-9)); ; n++) {
    const owners = new Set<number>();
    for (let j = 0; j < of * tier; j++) owners.add(ownerOf(j * n, of, tier));
    if (owners.size === of) return n;
  }
}

/** The longest time between two slots of one process of a fleet of `of`. */
export function longestOwnGapMs(of: number, tier: number): number {
  let longest = 0;
  for (let index = 0; index < of; index++) {
    let last: number | undefined;
    for (let k = 0; k < 2 * of * tier; k++) {
      if (ownerOf(k, of, tier) !== index) continue;
      if (last !== undefined) longest = Math.max(longest, k - last);
      last = k;
    }
  }
  return longest * gridPace(of, tier).periodMs;
}

function mod(k: number, n: number): number {
  return ((k % n) + n) % n;
}
