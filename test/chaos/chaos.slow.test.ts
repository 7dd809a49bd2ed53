/**
 * A short chaos run through the same code path as `npm run chaos`: six orders (two per flow) on
 * the run's own Temporal dev server and sandbox (own ports: the shared test server is not
 * touched), with lost answers, busy and rate-limited answers, a slow call, resets, an expired
 * token, SIGKILLs of the worker and a restart of the Temporal server. Nothing may be created or
 * paid twice, no workflow may fail, every order must end or wait with a reason, and every order's
 * stage must agree with the sandbox's record.
 */
import { expect, it } from 'vitest';

import { formatTable, summary } from '../../tools/src/chaos/report.js';
import { DEFAULT_CHAOS_OPTIONS, runChaos } from '../../tools/src/chaos/run.js';

it(
  'six orders under faults, kills and a server restart: nothing twice, none failed, stuck or mismatched',
  async () => {
    const progress: string[] = [];
    const report = await runChaos({
      ...DEFAULT_CHAOS_OPTIONS,
      orders: 6,
      seed: 20_240_601,
      kills: 2,
      latencyCalls: 1,
      progress: (line) => progress.push(line),
    });
    const result = summary(report);
    const table = `${formatTable(report)}\n\n${progress.join('\n')}`;

    expect(result.faultsByKind['kill9'], table).toBe(2);
    expect(result.faultsByKind['serverRestart'], table).toBe(1);
    expect(result.faultsByKind['commitThenDrop'], table).toBeGreaterThan(0);
    expect(result, table).toMatchObject({
      orders: 6,
      failedWorkflows: 0,
      duplicateCreates: 0,
      secondPayments: 0,
      stuckWithoutReason: 0,
      mismatches: 0,
    });
  },
  15 * 60_000,
);
