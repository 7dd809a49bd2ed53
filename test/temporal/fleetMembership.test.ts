/**
 * Workers of one deployment find each other through the real dev server (temporal/fleetMembership.ts):
 * the pollers of the fleet's membership queue, as DescribeTaskQueue reports them. Two, then three
 * members agree on distinct seats; one that stops polling (a crash) and one that leaves are
 * absorbed by the others within seconds. Timings shorter than the shipped ones, the rules the same.
 */
import { Client } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/telemetry/log.js';
import type { Seat } from '../../src/supplier/fleet.js';
import {
  FleetMembership,
  type FleetMembershipOptions,
} from '../../src/temporal/fleetMembership.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { eventually } from '../support/eventually.js';
import { useNewNamespace } from '../support/temporal.js';

const temporal = useNewNamespace('fleet');
const TIMING = {
  joinDelayMs: 1_500,
  leaveDelayMs: 1_000,
  staleMs: 5_000,
  selfStaleMs: 3_000,
  viewStaleMs: 1_500,
  quietMs: 500,
};
const EVERY_MS = { poll: 500, read: 250 };

const members: FleetMembership[] = [];
afterAll(() => {
  for (const m of members) m.close();
});

async function join(
  prefix = 'fleet-test',
  everyMs: FleetMembershipOptions['everyMs'] = EVERY_MS,
): Promise<FleetMembership> {
  const client = new Client({ connection: temporal.connection, namespace: temporal.namespace });
  const m = await FleetMembership.join({
    client,
    namespace: temporal.namespace,
    supplierQueue: taskQueues(prefix).supplier,
    log: createLogger('fleet-test'),
    timing: TIMING,
    everyMs,
  });
  members.push(m);
  return m;
}

/** Each member's seat at one moment (the same moment for all). */
function seats(ms: readonly FleetMembership[]): Seat[] {
  const t = Date.now();
  return ms.map((m) => m.view.seatAt(t));
}

/** Whether the members hold seats 0 … n−1 of n, one each. */
function distinct(s: readonly Seat[]): boolean {
  const indexes = s.map((x) => (x.kind === 'seat' && x.of === s.length ? x.index : -1));
  return indexes.every((i) => i >= 0) && new Set(indexes).size === s.length;
}

describe('an elastic fleet found through Temporal', () => {
  it('two, then three members agree on distinct seats; a crash and a leave are absorbed', async () => {
    const a = await join();
    expect(a.view.seatAt(Date.now())).toEqual({ kind: 'alone' });
    const b = await join();
    await eventually(
      'two members with seats 0 and 1 of 2',
      () => Promise.resolve(seats([a, b])),
      distinct,
    );
    const c = await join();
    await eventually(
      'three members with seats 0, 1, 2 of 3',
      () => Promise.resolve(seats([a, b, c])),
      distinct,
    );

    // c stops polling at once, as a crashed process does.
    c.close();
    const absorbed = Date.now();
    await eventually(
      'the two left back to two seats',
      () => Promise.resolve(seats([a, b])),
      distinct,
    );
    expect(Date.now() - absorbed).toBeLessThan(TIMING.staleMs + 5_000);

    await b.leave();
    await eventually(
      'the last one alone',
      () => Promise.resolve(seats([a])),
      (s) => s[0]?.kind === 'alone',
    );
    expect(b.view.seatAt(Date.now())).toEqual({ kind: 'out' });
  });

  it('a member keeps no listener of a finished poll (no MaxListenersExceededWarning after 80 polls)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(`${w.name}: ${w.message}`);
    };
    process.on('warning', onWarning);
    try {
      // A poll every 100 ms that lasts 1 s: about 10 in flight at once, far below the 64 allowed.
      const m = await join('fleet-listeners', { poll: 100, read: 250, pollTimeout: 1_000 });
      await eventually(
        '80 polls sent',
        () => Promise.resolve(m.pollsSent),
        (n) => n >= 80,
      );
      // A warning is emitted on the next tick after the listener that crosses the limit.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
