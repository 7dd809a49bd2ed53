/** `dropflow cancel <orderNumber> --reason R`: cancel an order (the workflow says if it can). */
import type { Command } from 'commander';

import { reportAction } from '../output.js';
import { accountOption, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface CancelFlags extends TemporalFlags, AccountFlags {
  reason: string;
  by?: string;
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    accountOption(
      program
        .command('cancel')
        .description('cancel an order; refused once it can no longer be cancelled')
        .argument('<orderNumber>', 'the order name it was submitted with'),
    )
      .requiredOption('--reason <text>', 'why, for the timeline')
      .option('--by <name>', 'who asks, for the timeline')
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, flags: CancelFlags) => {
    const result = await withAccountOrders(flags, (orders) =>
      orders.cancel(orderNumber, {
        reason: flags.reason,
        ...(flags.by !== undefined && { by: flags.by }),
      }),
    );
    reportAction('cancel', orderNumber, result, flags.json === true);
  });
}
