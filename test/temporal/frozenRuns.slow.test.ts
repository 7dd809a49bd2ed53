/**
 * `dropflow frozen` counts, per frozen code set, the open runs of the namespace that may need it
 * (frozenRuns.test.ts has the worker's refusal). It starts the command, hence the slow suite.
 */
import { expect, inject, it } from 'vitest';

import { FROZEN_SETS, type FrozenSet } from '../../src/frozen/sets.js';
import { runDropflow } from '../support/cli.js';

it('`dropflow frozen` counts, per set, the open runs of the namespace started before its patch', async () => {
  const run = await runDropflow(['frozen', '--json'], {
    env: {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    },
  });
  expect(run.stderr).toBe('');
  expect(run.code, run.stdout).toBe(0);
  const sets = JSON.parse(run.stdout) as (FrozenSet & { open: number; workflowIds: string[] })[];
  expect(sets.map((s) => s.id)).toEqual(FROZEN_SETS.map((s) => s.id));
  // Every run of this test server started after the reconciling steps shipped.
  expect(sets.find((s) => s.id === 'v1')).toMatchObject({ open: 0, workflowIds: [] });
});
