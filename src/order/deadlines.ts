/**
 * The order's deadlines as it keeps them (docs/delivery-promises.md), written by this class alone:
 * the clock once the order keeps one (orders started before deadlines keep none), the milestones
 * it reached and the deadlines it missed. The status shows them; slaWatch.ts holds their timer. A
 * missed deadline is flagged through the order, which marks it late and tells the store.
 */
import type { OrderLateData } from '../storeEvents/contract.js';
import type { Deadline, DeadlineView } from '../terms/sla.js';
import type { Milestone, MissedDeadline, SlaClock } from './slaClock.js';
import type { Parcels } from './parcels.js';

/** How the order shows its deadlines, and how it flags one missed (search attribute, store). */
export interface DeadlinesShown {
  shown(deadlines: DeadlineView[]): void;
  late(data: OrderLateData, breached: Deadline[], note: string): void;
}

export class Deadlines {
  private clock: SlaClock | undefined;

  constructor(
    private readonly parcels: Parcels,
    private readonly show: DeadlinesShown,
  ) {}

  /** The order keeps these deadlines from now on. */
  kept(clock: SlaClock): void {
    this.clock = clock;
    this.show.shown(clock.view);
  }

  /** The supplier quoted the chosen logistics line's delivery time, in days. */
  deliveryQuoted(maxDays: number | undefined): void {
    if (this.clock === undefined || maxDays === undefined) return;
    this.clock.deliveryQuoted(maxDays);
    this.show.shown(this.clock.view);
  }

  reached(milestone: Milestone): void {
    if (this.clock === undefined) return;
    this.clock.reached(milestone, new Date().getTime());
    this.show.shown(this.clock.view);
  }

  /** A deadline passed unmet: flagged, told to the store; the order goes on where it is. */
  missed(missed: MissedDeadline): void {
    if (this.clock === undefined) return;
    this.show.shown(this.clock.view);
    const late = this.parcels.split ? this.parcels.missed(missed.deadline).map((p) => p.code) : [];
    const which = late.length > 0 ? `: parcel ${late.join(', ')}` : '';
    this.show.late(
      { ...missed, ...(late.length > 0 && { parcels: late }) },
      this.clock.breached,
      `late: ${missed.deadline} was due ${missed.dueAt} (within ${missed.within})${which}`,
    );
  }

  /** The order ended: its deadlines stop. */
  ended(): void {
    this.clock?.stop();
  }
}
