/**
 * The live roster of a deployment's workers, as the Temporal server reports the pollers of the
 * fleet's membership queue (temporal/fleetMembership.ts), and each process's seat from it. Every
 * rule is a function of what the server reported (identities and last poll times) and of the
 * slot's time, never of when a process looked: two processes that hold the same report give every
 * slot the same owner, whatever their clocks say now.
 *
 * - A member's identity carries when it joined, and, once it leaves, when it stops. It sends from
 *   `joinedAt + joinDelayMs` (by then every other member has seen it) until `leaveAt`.
 * - A member that stopped polling (a crash) is gone `staleMs` after its last poll; until then its
 *   slots stay unused.
 * - A process holds its own seat only while the server saw it poll in the last `selfStaleMs` and
 *   it read the roster in the last `viewStaleMs`: a process that cannot reach Temporal stops
 *   sending before the others give its slots away.
 * - One member alone paces off any grid at the tier; from one to several or back, and from own
 *   seconds to shared ones or back (fleetGrid.ts), nobody sends for `quietMs`, so that no second
 *   mixes two paces.
 */
import type { FleetView, Seat, SeatQuery, Sender } from './fleet.js';
import { gridPace, ownerOf } from './fleetGrid.js';

export interface FleetTiming {
  joinDelayMs: number;
  leaveDelayMs: number;
  staleMs: number;
  selfStaleMs: number;
  viewStaleMs: number;
  quietMs: number;
}

/**
 * The members poll every 2 s (each poll held up to 11 s: below 10 s the server warns of every
 * poll) and read the roster every second. A member that stopped is noticed
 * within 2 s; its own cut-off comes `staleMs − selfStaleMs` before the others': room for one
 * roster read missed (`viewStaleMs`) and one poll interval. The quiet spans a second, the latest
 * a call of the old pace may leave after its slot, and the network.
 */
export const FLEET_TIMING: FleetTiming = {
  joinDelayMs: 3_000,
  leaveDelayMs: 3_000,
  staleMs: 10_000,
  selfStaleMs: 4_500,
  viewStaleMs: 2_500,
  quietMs: 1_200,
};

/** One poller of the membership queue, as the server reports it. */
export interface Poller {
  identity: string;
  /** The server's time of its last poll (epoch ms). */
  lastAccessMs: number;
}

const PREFIX = 'dropflow-fleet';

/** A member's poller identity: `dropflow-fleet/<id>/<joinedAt>[/leaving/<leaveAt>]`. */
export function memberIdentity(id: string, joinedAt: number, leaveAt?: number): string {
  const base = `${PREFIX}/${id}/${joinedAt}`;
  return leaveAt === undefined ? base : `${base}/leaving/${leaveAt}`;
}

interface Member {
  id: string;
  /** From when it sends (epoch ms). */
  from: number;
  /** Until when (exclusive). */
  until: number;
  /** The server's time of its last poll. */
  lastAccessMs: number;
}

function parse(p: Poller): { id: string; joinedAt: number; leaveAt?: number } | undefined {
  const m = /^dropflow-fleet\/([^/]+)\/(\d+)(?:\/leaving\/(\d+))?$/.exec(p.identity);
  if (m === null) return undefined;
  return {
    id: m[1]!,
    joinedAt: Number(m[2]),
    ...(m[3] !== undefined && { leaveAt: Number(m[3]) }),
  };
}

/** The members the pollers tell of, by id (a leaving member polls under a second identity). */
export function rosterOf(pollers: readonly Poller[], timing: FleetTiming = FLEET_TIMING): Member[] {
  const byId = new Map<string, { joinedAt: number; leaveAt: number; lastAccessMs: number }>();
  for (const p of pollers) {
    const parsed = parse(p);
    if (parsed === undefined) continue;
    const known = byId.get(parsed.id);
    byId.set(parsed.id, {
      joinedAt: parsed.joinedAt,
      leaveAt: Math.min(known?.leaveAt ?? Infinity, parsed.leaveAt ?? Infinity),
      lastAccessMs: Math.max(known?.lastAccessMs ?? -Infinity, p.lastAccessMs),
    });
  }
  return [...byId]
    .map(([id, m]) => ({
      id,
      from: m.joinedAt + timing.joinDelayMs,
      until: Math.min(m.leaveAt, m.lastAccessMs + timing.staleMs),
      lastAccessMs: m.lastAccessMs,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** This process's view of the fleet: its seat at any moment, from the last roster it read. */
export class FleetRoster implements FleetView {
  private members: Member[] = [];
  /** This process's own cut-off (local reasons: its last poll seen, its last read, its leave). */
  private ownUntil = -Infinity;
  private leaveAt = Infinity;

  constructor(
    readonly key: string,
    /** This process's member id. */
    readonly me: string,
    private readonly timing: FleetTiming = FLEET_TIMING,
  ) {}

  /** The pollers the server reported, read at `readAt` (this process's clock). */
  update(pollers: readonly Poller[], readAt: number): void {
    this.members = rosterOf(pollers, this.timing);
    const self = this.members.find((m) => m.id === this.me);
    this.ownUntil =
      self === undefined
        ? -Infinity
        : Math.min(self.lastAccessMs + this.timing.selfStaleMs, readAt + this.timing.viewStaleMs);
  }

  /** This process stops sending at `leaveAt`, whatever the roster says. */
  leave(leaveAt: number): void {
    this.leaveAt = Math.min(this.leaveAt, leaveAt);
  }

  seatAt(t: number, { expected = false, tier }: SeatQuery = {}): Seat {
    if ((!expected && t >= this.ownUntil) || t >= this.leaveAt) return { kind: 'out' };
    const active = this.activeAt(t);
    const index = active.findIndex((m) => m.id === this.me);
    if (index === -1 || this.changedPace(t, active.length, tier)) return { kind: 'out' };
    return active.length === 1 ? { kind: 'alone' } : { kind: 'seat', index, of: active.length };
  }

  senderAt(t: number, k: number, tier: number): Sender {
    const active = this.activeAt(t);
    const n = active.length;
    if (n <= 1 || this.changedPace(t, n, tier)) return 'nobody';
    if (gridPace(n, tier).kind !== 'own') return 'other';
    return active[ownerOf(k, n, tier)]!.id === this.me ? 'me' : 'other';
  }

  size(): number {
    return Math.max(1, this.activeAt(Date.now()).length);
  }

  private activeAt(t: number): Member[] {
    return this.members.filter((m) => m.from <= t && t < m.until);
  }

  /** Whether, in the `quietMs` before `t`, the fleet had another pace than `n` senders have. */
  private changedPace(t: number, n: number, tier: number | undefined): boolean {
    const start = t - this.timing.quietMs;
    const changes = this.members
      .flatMap((m) => [m.from, m.until])
      .filter((at) => at > start && at < t);
    const pace = paceOf(n, tier);
    return [start, ...changes].some((at) => {
      const then = this.activeAt(at).length;
      return then !== 0 && paceOf(then, tier) !== pace;
    });
  }
}

/** Alone off any grid, or the grid's pace at the tier (without one: several). */
function paceOf(n: number, tier: number | undefined): string {
  if (n === 1) return 'alone';
  return tier === undefined ? 'several' : gridPace(n, tier).kind;
}
