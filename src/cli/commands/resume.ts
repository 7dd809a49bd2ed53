/** `dropflow resume <orderNumber> [--note N]`: retry the blocked step once its cause is fixed. */
import type { Command } from 'commander';

import { reportAction } from '../output.js';
import { accountOption, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface ResumeFlags extends TemporalFlags, AccountFlags {
  note?: string;
  by?: string;
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    accountOption(
      program
        .command('resume')
        .description('retry the step an order is blocked on, after the cause was fixed')
        .argument('<orderNumber>', 'the order name it was submitted with'),
    )
      .option('--note <text>', 'what was fixed, for the timeline')
      .option('--by <name>', 'who asks, for the timeline')
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, flags: ResumeFlags) => {
    const result = await withAccountOrders(flags, (orders) =>
      orders.resume(orderNumber, {
        ...(flags.note !== undefined && { note: flags.note }),
        ...(flags.by !== undefined && { by: flags.by }),
      }),
    );
    reportAction('resume', orderNumber, result, flags.json === true);
  });
}
