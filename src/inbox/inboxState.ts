/**
 * The state of the webhook inbox, as one explicit object: the held events (oldest first, bounded),
 * the messageIds already seen (deduplication, bounded), and counters. Pure: the workflow passes
 * the time in, and hears of every held event that leaves without being delivered or discarded
 * (evicted by the bound, expired) through `onDrop`, to log it. Sandbox-safe.
 */
import type { HeldEventOutcome } from './activities.js';
import type { HeldEvent, HoldRequest, InboxView, ReplayResult } from './contract.js';
import { BoundedList, pushBounded } from '../durable/longRunning.js';

/** Held events kept at most (count, and characters of JSON); beyond it the oldest goes (evicted). */
export const HELD_LIMIT = 1_000;
export const HELD_CHARS_LIMIT = 500_000;
/** messageIds remembered for deduplication. */
export const SEEN_LIMIT = 5_000;
/** When the inbox tries an event again by itself (visibility-only misses), after holding it. */
export const AUTO_REPLAY_DELAYS_MS = [30_000, 5 * 60_000, 60 * 60_000] as const;
/** After a replay attempt that could not reach Temporal at all. */
export const FAILED_ATTEMPT_DELAY_MS = 5 * 60_000;
/**
 * How long an ORDER event for an order dropflow never created (no `order:<orderNumber>` workflow
 * ever existed) stays held: long enough for an order submitted late to be replayed to, short
 * enough that such events do not pile up and push out events dropflow needs.
 */
export const UNKNOWN_ORDER_TTL_MS = 7 * 24 * 60 * 60_000;

// evicted: beyond HELD_LIMIT / HELD_CHARS_LIMIT; expired: after UNKNOWN_ORDER_TTL_MS.
export type InboxCounts = Omit<InboxView, 'held'>;

/** Why a held event left the inbox undelivered without anybody asking. */
export type DropCause = 'evicted' | 'expired';

export interface InboxOptions {
  /** Told of every event evicted or expired (the workflow logs it). */
  onDrop?: (event: HeldEvent, cause: DropCause) => void;
}

export interface InboxSnapshot {
  held: HeldEvent[];
  seen: string[];
  counts: InboxCounts;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class InboxState {
  private readonly held: BoundedList<HeldEvent>;
  private readonly seen: string[];
  private readonly counts: InboxCounts;
  private readonly onDrop: (event: HeldEvent, cause: DropCause) => void;
  /** Grows with every change, so waits can tell. */
  version = 0;

  constructor(from: Partial<InboxSnapshot> = {}, options: InboxOptions = {}) {
    this.held = new BoundedList(from.held ?? [], HELD_LIMIT, HELD_CHARS_LIMIT);
    this.seen = [...(from.seen ?? [])];
    this.counts = {
      received: 0,
      delivered: 0,
      evicted: 0,
      expired: 0,
      discarded: 0,
      ...from.counts,
    };
    this.onDrop = options.onDrop ?? (() => undefined);
  }

  /** Keeps the event unless its messageId was seen; returns false for a duplicate. */
  hold(request: HoldRequest, now: number): boolean {
    const { messageId } = request.event;
    if (this.seen.includes(messageId)) return false;
    pushBounded(this.seen, messageId, SEEN_LIMIT);
    const held: HeldEvent = {
      ...request,
      heldAt: iso(now),
      replays: 0,
      ...(request.autoReplay && { nextReplayAt: iso(now + AUTO_REPLAY_DELAYS_MS[0]) }),
      ...(request.unknownOrder === true && { expiresAt: iso(now + UNKNOWN_ORDER_TTL_MS) }),
    };
    this.counts.received += 1;
    for (const gone of this.held.push(held)) {
      this.counts.evicted += 1;
      this.onDrop(gone, 'evicted');
    }
    this.version += 1;
    return true;
  }

  view(): InboxView {
    return { held: this.held.items, ...this.counts };
  }

  /** The held events with these messageIds (all when left out). */
  select(messageIds?: readonly string[]): HeldEvent[] {
    if (messageIds === undefined) return [...this.held.items];
    return this.held.items.filter((h) => messageIds.includes(h.event.messageId));
  }

  /** Those of `events` still held (a replay or discard may have taken some meanwhile). */
  current(events: readonly HeldEvent[]): HeldEvent[] {
    return events.filter((e) => this.held.items.includes(e));
  }

  due(now: number): HeldEvent[] {
    return this.held.items.filter(
      (h) => h.nextReplayAt !== undefined && Date.parse(h.nextReplayAt) <= now,
    );
  }

  /** The earliest automatic attempt (ms since the epoch), if any. */
  nextReplayAt(): number | undefined {
    let next: number | undefined;
    for (const h of this.held.items) {
      if (h.nextReplayAt === undefined) continue;
      const at = Date.parse(h.nextReplayAt);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /** The earliest expiry of an unknown-order event (ms since the epoch), if any. */
  nextExpiryAt(): number | undefined {
    let next: number | undefined;
    for (const h of this.held.items) {
      if (h.expiresAt === undefined) continue;
      const at = Date.parse(h.expiresAt);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /** Lets go of the unknown-order events whose time is up; returns them. */
  expire(now: number): HeldEvent[] {
    const gone = this.held.remove(
      (h) => h.expiresAt !== undefined && Date.parse(h.expiresAt) <= now,
    );
    if (gone.length === 0) return gone;
    for (const h of gone) {
      this.counts.expired += 1;
      this.onDrop(h, 'expired');
    }
    this.version += 1;
    return gone;
  }

  /** Applies routing outcomes: delivered and closed ones leave, the others wait for their next try. */
  settle(outcomes: readonly HeldEventOutcome[], now: number, result: ReplayResult): void {
    for (const o of outcomes) {
      const h = this.held.items.find((e) => e.event.messageId === o.messageId);
      if (h === undefined) continue;
      if (o.outcome === 'held') {
        h.reason = o.reason;
        h.autoReplay = o.autoReplay;
        if (o.unknownOrder === true) {
          // Counted from when it was first held: replays do not keep it longer.
          h.unknownOrder = true;
          h.expiresAt ??= iso(Date.parse(h.heldAt) + UNKNOWN_ORDER_TTL_MS);
        } else {
          delete h.unknownOrder;
          delete h.expiresAt;
        }
        this.scheduleNext(h, now, AUTO_REPLAY_DELAYS_MS[h.replays + 1]);
        result.stillHeld.push(o.messageId);
      } else {
        this.held.remove((e) => e === h);
        if (o.outcome === 'delivered') {
          this.counts.delivered += 1;
          result.delivered.push(o.messageId);
        } else {
          result.closed.push(o.messageId);
        }
      }
    }
    this.version += 1;
  }

  /** An attempt that failed as a whole: the automatic ones try again later. */
  postpone(events: readonly HeldEvent[], now: number): void {
    for (const h of this.current(events)) this.scheduleNext(h, now, FAILED_ATTEMPT_DELAY_MS);
    this.version += 1;
  }

  discard(messageIds: readonly string[]): string[] {
    const gone = this.held.remove((h) => messageIds.includes(h.event.messageId));
    this.counts.discarded += gone.length;
    this.version += 1;
    return gone.map((h) => h.event.messageId);
  }

  snapshot(): InboxSnapshot {
    return { held: this.held.items, seen: this.seen, counts: this.counts };
  }

  private scheduleNext(h: HeldEvent, now: number, delay: number | undefined): void {
    h.replays += 1;
    if (h.autoReplay && delay !== undefined && h.replays < AUTO_REPLAY_DELAYS_MS.length) {
      h.nextReplayAt = iso(now + delay);
    } else {
      delete h.nextReplayAt;
    }
  }
}
