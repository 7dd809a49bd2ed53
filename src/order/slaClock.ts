/**
 * An order's deadlines as one small clock (docs/delivery-promises.md): which ones run, when the
 * next is due, which were met or missed. Plain data and arithmetic, no Temporal: the workflow's
 * watcher (slaWatch.ts) races the next due time, `Order` tells the clock what happened.
 */
import {
  DEADLINES,
  Deadline,
  durationMs,
  WITHIN_FIELD,
  type DeadlineSource,
  type DeadlineView,
  type SlaDurations,
} from '../terms/sla.js';

/** What an order goes through, in order; reaching one reaches every earlier one too. */
export const Milestone = {
  Received: 'received',
  Paid: 'paid',
  Shipped: 'shipped',
  FirstScan: 'firstScan',
  Delivered: 'delivered',
} as const;
export type Milestone = (typeof Milestone)[keyof typeof Milestone];
const MILESTONES: readonly Milestone[] = Object.values(Milestone);

/** The milestone each deadline counts from; each is met by the milestone of its own name. */
const COUNTS_FROM: Record<Deadline, Milestone> = {
  paid: Milestone.Received,
  shipped: Milestone.Paid,
  firstScan: Milestone.Shipped,
  delivered: Milestone.Shipped,
};

interface DeadlineState {
  deadline: Deadline;
  within: string;
  source: DeadlineSource;
  dueAt?: number;
  metAt?: number;
  missedAt?: number;
}

/** A deadline that was just missed, as the store and the operator are told. */
export interface MissedDeadline {
  deadline: Deadline;
  within: string;
  dueAt: string;
  /** How late the order is when this is noticed, in seconds (0 when noticed on time). */
  lateSeconds: number;
}

/** The clock's state: plain data, carried over a continue-as-new. */
export interface SlaState {
  reached: Partial<Record<Milestone, number>>;
  deadlines: DeadlineState[];
}

export class SlaClock {
  private stopped = false;

  private constructor(private readonly state: SlaState) {}

  /**
   * The deadlines of an order received at `receivedAt`: the order's own durations before the
   * store's. A deadline neither gives does not run.
   */
  static start(
    order: SlaDurations | undefined,
    store: SlaDurations | undefined,
    receivedAt: number,
  ): SlaClock {
    const deadlines: DeadlineState[] = [];
    for (const deadline of DEADLINES) {
      const field = WITHIN_FIELD[deadline];
      const own = order?.[field];
      const stores = store?.[field];
      if (own !== undefined) deadlines.push({ deadline, within: own, source: 'order' });
      else if (stores !== undefined) deadlines.push({ deadline, within: stores, source: 'store' });
    }
    const clock = new SlaClock({ reached: {}, deadlines });
    clock.reached(Milestone.Received, receivedAt);
    return clock;
  }

  static resume(state: SlaState): SlaClock {
    return new SlaClock(state);
  }

  get snapshot(): SlaState {
    return this.state;
  }

  /**
   * The supplier quoted the delivery time of the order's logistics line: `deliveredWithin`, unless
   * the order set its own (the quote is for this route, so it comes before the store's default).
   */
  deliveryQuoted(days: number): void {
    const existing = this.find(Deadline.Delivered);
    if (existing?.source === 'order' || existing?.dueAt !== undefined) return;
    const within = `P${days}D`;
    if (existing !== undefined) {
      existing.within = within;
      existing.source = 'logistics';
    } else {
      this.state.deadlines.push({ deadline: Deadline.Delivered, within, source: 'logistics' });
    }
    const from = this.state.reached[COUNTS_FROM.delivered];
    if (from !== undefined) this.due(this.find(Deadline.Delivered)!, from);
  }

  /** The order reached `milestone` at `at` (and every earlier one it had not). */
  reached(milestone: Milestone, at: number): void {
    const upTo = MILESTONES.indexOf(milestone);
    for (const m of MILESTONES.slice(0, upTo + 1)) {
      if (this.state.reached[m] !== undefined) continue;
      this.state.reached[m] = at;
      for (const d of this.state.deadlines) {
        if (d.deadline === m) d.metAt ??= at;
        if (COUNTS_FROM[d.deadline] === m && d.metAt === undefined) this.due(d, at);
      }
    }
  }

  /** The order ended: no deadline runs any more. */
  stop(): void {
    this.stopped = true;
  }

  get stoppedNow(): boolean {
    return this.stopped;
  }

  /** The deadline due first among those that run, unmet and not missed yet. */
  next(): { deadline: Deadline; dueAt: number } | undefined {
    if (this.stopped) return undefined;
    let first: DeadlineState | undefined;
    for (const d of this.state.deadlines) {
      if (d.dueAt === undefined || d.metAt !== undefined || d.missedAt !== undefined) continue;
      if (first === undefined || d.dueAt < first.dueAt!) first = d;
    }
    return first && { deadline: first.deadline, dueAt: first.dueAt! };
  }

  /** The deadline passed unmet at `at`. */
  missed(deadline: Deadline, at: number): MissedDeadline {
    const d = this.find(deadline)!;
    d.missedAt = at;
    return {
      deadline,
      within: d.within,
      dueAt: new Date(d.dueAt!).toISOString(),
      lateSeconds: Math.max(0, Math.round((at - d.dueAt!) / 1_000)),
    };
  }

  /** The deadlines missed so far (the SlaBreached search attribute). */
  get breached(): Deadline[] {
    return this.state.deadlines.filter((d) => d.missedAt !== undefined).map((d) => d.deadline);
  }

  /** What the status shows of each deadline. */
  get view(): DeadlineView[] {
    return this.state.deadlines.map((d) => ({
      deadline: d.deadline,
      within: d.within,
      source: d.source,
      ...(d.dueAt !== undefined && { dueAt: new Date(d.dueAt).toISOString() }),
      state: stateOf(d),
      ...(d.metAt !== undefined && { metAt: new Date(d.metAt).toISOString() }),
      ...(d.metAt !== undefined &&
        d.missedAt !== undefined && {
          lateSeconds: Math.max(0, Math.round((d.metAt - d.dueAt!) / 1_000)),
        }),
    }));
  }

  private find(deadline: Deadline): DeadlineState | undefined {
    return this.state.deadlines.find((d) => d.deadline === deadline);
  }

  /** Counts `d` from `from`; a duration that does not parse (never validated) does not run. */
  private due(d: DeadlineState, from: number): void {
    const ms = durationMs(d.within);
    if (ms !== undefined) d.dueAt = from + ms;
  }
}

function stateOf(d: DeadlineState): DeadlineView['state'] {
  if (d.missedAt !== undefined) return 'missed';
  if (d.metAt !== undefined) return 'met';
  return d.dueAt === undefined ? 'waiting' : 'pending';
}
