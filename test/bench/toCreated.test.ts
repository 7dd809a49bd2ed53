/** Submit → CREATED, as `dropflow bench orders` and the chaos report give it: p50 and p99. */
import { describe, expect, it } from 'vitest';

import { toCreatedMs, toCreatedSummary } from '../../tools/src/localStack/toCreated.js';
import { Stage, type OrderStatus } from '../../src/order/contract.js';

const T0 = Date.parse('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function status(timeline: OrderStatus['timeline']): OrderStatus {
  return { orderNumber: 'o1', flow: 'B', stage: Stage.PAID, atSupplier: true, timeline };
}

describe('toCreatedMs', () => {
  it('is the time to the first CREATED on the timeline', () => {
    const s = status([
      { stage: Stage.RECEIVED, at: at(100) },
      { stage: Stage.CREATED, at: at(2_500) },
      { stage: Stage.NEEDS_ATTENTION, at: at(3_000) },
      { stage: Stage.CREATED, at: at(9_000) },
    ]);
    expect(toCreatedMs(s, T0)).toBe(2_500);
  });

  it('is undefined for an order the supplier does not have yet', () => {
    expect(toCreatedMs(status([{ stage: Stage.RECEIVED, at: at(0) }]), T0)).toBeUndefined();
  });
});

describe('toCreatedSummary', () => {
  it('gives nearest-rank p50 and p99 whatever order the times come in', () => {
    const ms = Array.from({ length: 100 }, (_, i) => (100 - i) * 1_000);
    expect(toCreatedSummary(ms)).toEqual({ orders: 100, p50Ms: 50_000, p99Ms: 99_000 });
  });

  it('with one order both are its time; with none, none', () => {
    expect(toCreatedSummary([7_000])).toEqual({ orders: 1, p50Ms: 7_000, p99Ms: 7_000 });
    expect(toCreatedSummary([])).toEqual({ orders: 0, p50Ms: null, p99Ms: null });
  });

  it('lets one slow order show in p99, not in p50', () => {
    const ms = [...Array.from({ length: 99 }, () => 3_000), 1_260_000];
    expect(toCreatedSummary(ms)).toEqual({ orders: 100, p50Ms: 3_000, p99Ms: 3_000 });
    const ms2 = [...Array.from({ length: 98 }, () => 3_000), 1_260_000, 1_300_000];
    expect(toCreatedSummary(ms2).p99Ms).toBe(1_260_000);
  });
});
