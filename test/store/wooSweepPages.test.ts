/**
 * The sweep's reading of a WooCommerce site, against the WooCommerce double: every page of the
 * orders changed since the cursor (X-WP-TotalPages), only the statuses the intake acts on, each
 * order handed over once, an order seen unchanged skipped, one that changed handed over again, and
 * one dropflow cannot take counted without a hand-over. The hand-over here records what it is
 * given; test/store/wooSweep.test.ts runs the same path into real order workflows.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';

import {
  storeSweepActivities,
  type SweepPagesInput,
  type SweepPagesResult,
} from '../../src/store/intake/sweepActivities.js';
import type { OrderIntake } from '../../src/store/intake/handOver.js';
import { siteTime } from '../../tools/src/storeDoubles/woocommerce/site.js';
import { useStoreDoubles } from './doubles.js';

const doubles = useStoreDoubles();

function sweeper(started: string[], told: string[]) {
  const intake: OrderIntake = {
    start: (doc) => {
      const number = String(doc['orderNumber']);
      const again = started.includes(number);
      started.push(number);
      return Promise.resolve(again ? 'existing' : 'started');
    },
    tell: (_store, id) => {
      told.push(id);
      return Promise.resolve(true);
    },
  };
  const acts = storeSweepActivities({
    stores: doubles().directory,
    intake,
    client: undefined as unknown as Client, // the resume look-up is not called here
    sleep: () => Promise.resolve(),
  });
  const run = (input: SweepPagesInput) => acts.sweepStoreOrders(input);
  return (input: SweepPagesInput): Promise<SweepPagesResult> =>
    new MockActivityEnvironment().run(run, input);
}

describe('a sweep reads the site page by page', () => {
  it('hands over every paid or cancelled order changed since the cursor, once', async () => {
    const { woo } = doubles();
    const since = siteTime(new Date(Date.now() - 1_000));
    const line = { sku: 'MUG-RED', quantity: 1, price: '9.00' };
    const paid = [];
    for (let i = 0; i < 205; i += 1) paid.push(woo.double.site.createOrder({ lines: [line] }));
    const pending = woo.double.site.createOrder({ lines: [line], paid: false });
    const cancelled = woo.double.site.createOrder({ lines: [line] });
    woo.double.site.setStatus(cancelled, 'cancelled');
    // Nothing to ship: dropflow cannot take it.
    woo.double.site.createOrder({ lines: [] });
    const requestsBefore = woo.double.stats.byRoute['GET orders'] ?? 0;

    const started: string[] = [];
    const told: string[] = [];
    const sweep = sweeper(started, told);
    const first = await sweep({ connection: 'woo-1', since: `${since}Z`, page: 1, seen: [] });
    if (first.kind !== 'swept') throw new Error(`not swept: ${JSON.stringify(first)}`);
    expect(first.nextPage).toBeUndefined();
    expect(woo.double.stats.byRoute['GET orders']! - requestsBefore).toBe(3);
    expect(first.counts).toMatchObject({ requests: 3, listed: 207, started: 205, told: 1 });
    expect(first.counts.refused).toBe(1);
    expect(new Set(started).size).toBe(205);
    expect(started).not.toContain(`woo-1-${pending.id}`);
    expect(told).toEqual([String(cancelled.id)]);
    expect(first.latest! >= new Date(`${paid.at(-1)!.date_modified_gmt}Z`).toISOString()).toBe(
      true,
    );

    // Again over the same window: what is unchanged is skipped, a change is handed over again.
    const changed = paid[0]!;
    changed.date_modified = changed.date_modified_gmt = siteTime(new Date(Date.now() + 2_000));
    const again = await sweep({
      connection: 'woo-1',
      since: `${since}Z`,
      page: 1,
      seen: first.taken,
    });
    if (again.kind !== 'swept') throw new Error(`not swept: ${JSON.stringify(again)}`);
    expect(again.counts).toMatchObject({ listed: 207, skipped: 206, existing: 1, started: 0 });
  });

  it('names a site that refuses the key, and says when the connection is gone', async () => {
    const { woo } = doubles();
    const sweep = sweeper([], []);
    woo.double.revokeKey();
    try {
      const refused = await sweep({
        connection: 'woo-1',
        since: new Date().toISOString(),
        page: 1,
        seen: [],
      });
      expect(refused).toMatchObject({ kind: 'waiting', reason: 'store-refused' });
    } finally {
      woo.double.restoreKey();
    }
    const gone = await sweep({ connection: 'no-such', since: '', page: 1, seen: [] });
    expect(gone).toEqual({ kind: 'removed' });
  });
});
