/**
 * `dropflow frozen [--limit N] [--json]`: every frozen code set (src/frozen/sets.ts) and how many
 * open runs of the namespace, every account's, may still need it. At 0 its code can go
 * (docs/changing-workflows.md, "Retiring frozen code").
 */
import type { Command } from 'commander';

import { FROZEN_SETS } from '../../frozen/sets.js';
import { runsBeforePatch } from '../frozenRuns.js';
import { nonNegativeInt } from '../options.js';
import { printJson, printLines } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';

interface FrozenFlags extends TemporalFlags {
  limit: number;
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    program
      .command('frozen')
      .description(
        'the frozen code sets kept for old runs, and how many open runs started before each patch',
      )
      .option('--limit <n>', 'name at most this many workflow ids per set', nonNegativeInt, 10)
      .option('--json', 'print the sets as one JSON document'),
  ).action(async (flags: FrozenFlags) => {
    const temporal = await connectTemporal(flags);
    try {
      const found = [];
      for (const set of FROZEN_SETS) {
        found.push(await runsBeforePatch(temporal.client, set, { limit: flags.limit }));
      }
      if (flags.json === true) {
        printJson(
          found.map(({ set, count, workflowIds }) => ({ ...set, open: count, workflowIds })),
        );
        return;
      }
      printLines(
        found.flatMap(({ set, count, workflowIds }) => [
          `${set.id}  ${set.patch}  shipped ${set.shipped}  ${set.retired ? 'retired' : 'kept'}  ${set.workflowTypes.join(', ')}  open before: ${count}`,
          ...workflowIds.map((id) => `  ${id}`),
        ]),
      );
    } finally {
      await temporal.close();
    }
  });
}
