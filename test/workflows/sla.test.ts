/**
 * Delivery promises without a server: how deadlines are written and refused, and the clock the
 * order workflow keeps them with — weeks-long deadlines included, as plain arithmetic on the
 * moments the order reached (the workflow's timer races the clock's next due time).
 */
import { describe, expect, it } from 'vitest';

import { parseOrder } from '../../src/order/orderInput.js';
import { DURATION_RULE, durationMs } from '../../src/terms/sla.js';
import { Milestone, SlaClock } from '../../src/order/slaClock.js';
import { usOrder } from '../supplier/orderHelpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-02T10:00:00Z');

function issuesOf(sla: unknown) {
  const parsed = parseOrder({ ...usOrder(), fulfillment: { flow: 'B', sla } });
  return parsed.ok ? [] : parsed.issues;
}

describe('fulfillment.sla', () => {
  it('takes ISO-8601 durations of weeks, days, hours, minutes and seconds', () => {
    expect(durationMs('PT48H')).toBe(48 * HOUR);
    expect(durationMs('P7D')).toBe(7 * DAY);
    expect(durationMs('P1W')).toBe(7 * DAY);
    expect(durationMs('P1DT12H')).toBe(36 * HOUR);
    expect(durationMs('PT5S')).toBe(5_000);
    expect(durationMs('PT1.5S')).toBe(1_500);
    const parsed = parseOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', sla: { paidWithin: 'PT48H', deliveredWithin: 'P14D' } },
    });
    expect(parsed.ok && parsed.input.fulfillment.sla).toEqual({
      paidWithin: 'PT48H',
      deliveredWithin: 'P14D',
    });
  });

  it('refuses a wrong one with the field and the reason', () => {
    expect(issuesOf({ paidWithin: '48h' })).toEqual([
      { field: 'fulfillment.sla.paidWithin', rule: DURATION_RULE },
    ]);
    expect(issuesOf({ shippedWithin: 'P1M' })).toEqual([
      {
        field: 'fulfillment.sla.shippedWithin',
        rule: 'years and months have no fixed length: use weeks or days (P30D)',
      },
    ]);
    expect(issuesOf({ firstScanWithin: 'PT0S' })).toEqual([
      { field: 'fulfillment.sla.firstScanWithin', rule: 'must be longer than zero' },
    ]);
    expect(issuesOf({ deliveredWithin: 'P400D' })).toEqual([
      { field: 'fulfillment.sla.deliveredWithin', rule: 'must be at most 366 days' },
    ]);
    expect(issuesOf({ deliverdWithin: 'P7D' })[0]?.field).toMatch(/^fulfillment\.sla/);
    expect(issuesOf({ paidWithin: 'P' })[0]?.rule).toBe(DURATION_RULE);
    expect(issuesOf({ paidWithin: 'PT' })[0]?.rule).toBe(DURATION_RULE);
  });
});

describe('the deadline clock', () => {
  it("counts each deadline from its own moment, the order's durations before the store's", () => {
    const clock = SlaClock.start(
      { shippedWithin: 'P3D' },
      { paidWithin: 'PT48H', shippedWithin: 'P5D', deliveredWithin: 'P14D' },
      T0,
    );
    expect(clock.next()).toEqual({ deadline: 'paid', dueAt: T0 + 48 * HOUR });
    clock.reached(Milestone.Paid, T0 + 2 * HOUR);
    expect(clock.next()).toEqual({ deadline: 'shipped', dueAt: T0 + 2 * HOUR + 3 * DAY });
    clock.reached(Milestone.Shipped, T0 + DAY);
    // Delivery counts from the shipment: two weeks.
    expect(clock.next()).toEqual({ deadline: 'delivered', dueAt: T0 + 15 * DAY });
    expect(clock.view.map((d) => [d.deadline, d.source, d.state])).toEqual([
      ['paid', 'store', 'met'],
      ['shipped', 'order', 'met'],
      ['delivered', 'store', 'pending'],
    ]);
    expect(clock.breached).toEqual([]);
  });

  it('a missed deadline stays missed, and says how late once it is met', () => {
    const clock = SlaClock.start({ paidWithin: 'P2D', shippedWithin: 'P7D' }, undefined, T0);
    clock.reached(Milestone.Paid, T0 + HOUR);
    const due = T0 + HOUR + 7 * DAY;
    const missed = clock.missed('shipped', due);
    expect(missed).toEqual({
      deadline: 'shipped',
      within: 'P7D',
      dueAt: new Date(due).toISOString(),
      lateSeconds: 0,
    });
    expect(clock.next()).toBeUndefined();
    expect(clock.breached).toEqual(['shipped']);
    clock.reached(Milestone.Shipped, due + 2 * DAY);
    const shipped = clock.view.find((d) => d.deadline === 'shipped')!;
    expect(shipped).toMatchObject({ state: 'missed', lateSeconds: 2 * 86_400 });
    expect(clock.breached).toEqual(['shipped']);
  });

  it("a later moment meets the earlier deadlines too; the logistics line's quote sets delivery", () => {
    const clock = SlaClock.start(
      { paidWithin: 'P1D', firstScanWithin: 'P2D' },
      { deliveredWithin: 'P30D' },
      T0,
    );
    clock.deliveryQuoted(12);
    clock.reached(Milestone.Paid, T0 + HOUR);
    clock.reached(Milestone.Delivered, T0 + 5 * DAY);
    expect(clock.view.map((d) => [d.deadline, d.within, d.source, d.state])).toEqual([
      ['paid', 'P1D', 'order', 'met'],
      ['firstScan', 'P2D', 'order', 'met'],
      ['delivered', 'P12D', 'logistics', 'met'],
    ]);
    expect(clock.next()).toBeUndefined();
  });

  it("the order's own deliveredWithin comes before the quote; a stopped clock runs nothing", () => {
    const clock = SlaClock.start({ deliveredWithin: 'P20D' }, undefined, T0);
    clock.deliveryQuoted(9);
    expect(clock.view[0]).toMatchObject({ within: 'P20D', source: 'order' });
    clock.reached(Milestone.Shipped, T0);
    expect(clock.next()).toEqual({ deadline: 'delivered', dueAt: T0 + 20 * DAY });
    clock.stop();
    expect(clock.next()).toBeUndefined();
  });

  it('carries its state over a new run', () => {
    const clock = SlaClock.start({ paidWithin: 'PT48H' }, undefined, T0);
    const again = SlaClock.resume(structuredClone(clock.snapshot));
    expect(again.next()).toEqual(clock.next());
  });
});
