/**
 * `dropflow bench orders` as a person runs it, small: six orders per phase at 4 requests/s on the
 * bench's own Temporal dev server, sandbox, gateway and workers (own ports: the shared test server
 * is not touched). Sanity of the last line of JSON only: speed belongs to the bench itself.
 * Sweeps every 3 s instead of 60 so that paid orders reach COMPLETED quickly.
 */
import { expect, it } from 'vitest';

import { lastJson, runBench } from './runBench.js';

const PHASES = ['off', 'on'] as const;
const ORDERS = 6;

it(
  'measures both phases: every order paid and completed, calls, bound fractions and actions that make sense',
  async () => {
    const run = await runBench('orders', [
      '--orders',
      String(ORDERS),
      '--rps',
      '4',
      '--tracking-seconds',
      '3',
      '--json',
    ]);
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(run.stderr, output).toMatch(/batching off \[.*\] created 6\/6 paid 6\/6 completed 6\/6/);
    expect(run.stdout, output).toMatch(/Temporal actions per order/);

    const result = lastJson(run) as Record<(typeof PHASES)[number], Record<string, unknown>>;
    expect(Object.keys(result).sort()).toEqual(['off', 'on']);

    for (const phase of PHASES) {
      const r = result[phase];
      expect(r, phase).toMatchObject({
        batching: phase,
        orders: ORDERS,
        paid: ORDERS,
        completed: ORDERS,
        ratePerSecond: 4,
      });
      for (const field of [
        'callsPerOrder',
        'callsPerOrderToCompleted',
        'ordersPerHour',
        'fractionOfBound',
        'actionsPerOrder',
        'p50ToPaidMs',
        'p95ToPaidMs',
        'p50ToCreatedMs',
        'p99ToCreatedMs',
        'workerRssMb',
      ]) {
        expect(typeof r[field], `${phase}.${field}`).toBe('number');
      }
      const n = (field: string) => r[field] as number;
      expect(n('callsPerOrder'), phase).toBeGreaterThanOrEqual(1);
      expect(n('callsPerOrderToCompleted'), phase).toBeGreaterThanOrEqual(n('callsPerOrder'));
      expect(n('fractionOfBound'), phase).toBeGreaterThan(0);
      expect(n('fractionOfBound'), phase).toBeLessThanOrEqual(1.5);
      expect(n('actionsPerOrder'), phase).toBeGreaterThan(0);
      expect(n('p50ToPaidMs'), phase).toBeLessThanOrEqual(n('p95ToPaidMs'));
      expect(n('p50ToCreatedMs'), phase).toBeLessThanOrEqual(n('p99ToCreatedMs'));
      expect(n('workerRssMb'), phase).toBeGreaterThan(0);
      const byKind = r['actionsByKind'] as Record<string, number>;
      expect(byKind['workflowStart'], phase).toBeGreaterThanOrEqual(1);
      expect(byKind['activity'], phase).toBeGreaterThan(0);
    }
    // The switch reached the worker: unbatched, every order pays alone.
    expect(result.off['batchSize']).toBeNull();
    expect(result.off['ordersPerPayment']).toBe(1);
    expect(result.on['batchSize']).toBeGreaterThanOrEqual(1);
  },
  10 * 60_000,
);
