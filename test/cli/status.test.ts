/** `dropflow status` output: where an order's store events stand, beside the rest of its status. */
import { describe, expect, it } from 'vitest';

import type { OrderStatus } from '../../src/order/contract.js';
import type { StoreEventsView } from '../../src/storeEvents/contract.js';
import { formatStatus, formatStoreEvents } from '../../src/cli/commands/status.js';

const base: OrderStatus = {
  orderNumber: 'SE-1',
  flow: 'B',
  stage: 'SHIPPED',
  svcOrderId: 'SVC-1',
  timeline: [{ stage: 'RECEIVED', at: '2026-11-23T10:00:00.000Z' }],
};

function storeEventsLine(storeEvents?: StoreEventsView): string | undefined {
  const lines = formatStatus({ ...base, ...(storeEvents !== undefined && { storeEvents }) });
  return lines.find((l) => l.startsWith('store events'));
}

describe('formatStatus', () => {
  it('shows no store events line before the order emitted one', () => {
    expect(storeEventsLine()).toBeUndefined();
  });

  it('counts delivered events when nothing waits', () => {
    const line = storeEventsLine({ mode: 'on', delivered: 5, waiting: [], attempts: 0 });
    expect(line).toMatch(/^store events +5 delivered$/);
  });

  it('names the oldest waiting event, its failed attempts, the last answer and the next try', () => {
    const line = storeEventsLine({
      mode: 'on',
      delivered: 3,
      waiting: [
        { id: 'evt_ship', type: 'order.shipped', occurredAt: '2026-11-23T11:00:00.000Z' },
        { id: 'evt_deliv', type: 'order.delivered', occurredAt: '2026-11-23T12:00:00.000Z' },
      ],
      attempts: 4,
      lastFailure: {
        message: 'store events: example.com answered HTTP 500',
        status: 500,
        at: '2026-11-23T12:05:00.000Z',
      },
      nextAttemptAt: '2026-11-23T12:05:40.000Z',
    });
    expect(line).toMatch(
      /^store events +3 delivered, 2 waiting: order\.shipped evt_ship \(attempt 4 failed at 2026-11-23T12:05:00\.000Z: store events: example\.com answered HTTP 500; next attempt 2026-11-23T12:05:40\.000Z\)$/,
    );
  });

  it('says an event is on its way before any attempt failed', () => {
    const line = storeEventsLine({
      mode: 'unknown',
      delivered: 0,
      waiting: [{ id: 'evt_new', type: 'order.created', occurredAt: '2026-11-23T10:00:01.000Z' }],
      attempts: 0,
    });
    expect(line).toMatch(
      /^store events +0 delivered, 1 waiting: order\.created evt_new \(being delivered\)$/,
    );
  });

  it('says when the workers send no store events', () => {
    const line = storeEventsLine({ mode: 'off', delivered: 0, waiting: [], attempts: 0 });
    expect(line).toMatch(/^store events +off \(the workers have no STORE_EVENTS_URL\)$/);
  });

  it('aligns the store events row with the others', () => {
    const lines = formatStatus({
      ...base,
      storeEvents: { mode: 'on', delivered: 1, waiting: [], attempts: 0 },
    });
    const column = (label: string) => {
      const line = lines.find((l) => l.startsWith(label));
      return line === undefined ? -1 : line.length - line.slice(label.length).trimStart().length;
    };
    expect(column('store events')).toBe(column('svc order'));
  });
});

describe('formatStoreEvents', () => {
  it('leaves out the next attempt when none is planned', () => {
    expect(
      formatStoreEvents({
        mode: 'on',
        delivered: 2,
        waiting: [{ id: 'evt_x', type: 'order.paid', occurredAt: '2026-11-23T10:00:00.000Z' }],
        attempts: 1,
        lastFailure: { message: 'store events: example.com did not answer within 10 s', at: 'T1' },
      }),
    ).toBe(
      '2 delivered, 1 waiting: order.paid evt_x (attempt 1 failed at T1: store events: example.com did not answer within 10 s)',
    );
  });
});
