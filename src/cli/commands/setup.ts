/**
 * `dropflow setup`: prepares a self-hosted Temporal cluster's namespace for dropflow by
 * registering its search attributes (FulfillmentStage, OrderNumber, SvcOrderId, FulfillmentFlow,
 * NeedsAttention). Safe to run on every deployment.
 */
import type { Command } from 'commander';

import { registerSearchAttributes } from '../../temporal/registerSearchAttributes.js';
import { printJson } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';

interface SetupFlags extends TemporalFlags {
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    program
      .command('setup')
      .description("register dropflow's search attributes in a Temporal namespace (idempotent)")
      .option('--json', 'print {added, present} as JSON'),
  ).action(async (flags: SetupFlags) => {
    const temporal = await connectTemporal(flags);
    try {
      const result = await registerSearchAttributes(
        temporal.client.connection,
        temporal.target.namespace,
      );
      if (flags.json === true) {
        printJson(result);
        return;
      }
      const ns = temporal.target.namespace;
      process.stdout.write(
        `namespace ${ns}: ${result.added.length > 0 ? `added ${result.added.join(', ')}` : 'nothing to add'}` +
          (result.present.length > 0 ? `; already there: ${result.present.join(', ')}` : '') +
          '\n',
      );
    } finally {
      await temporal.close();
    }
  });
}
