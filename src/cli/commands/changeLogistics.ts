/** `dropflow change-logistics <orderNumber> --logistic-name N`: switch an order's logistics line. */
import type { Command } from 'commander';

import { reportAction } from '../output.js';
import { accountOption, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface ChangeLogisticsFlags extends TemporalFlags, AccountFlags {
  logisticName: string;
  by?: string;
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    accountOption(
      program
        .command('change-logistics')
        .description("change an order's logistics line (before confirmation)")
        .argument('<orderNumber>', 'the order name it was submitted with'),
    )
      .requiredOption(
        '--logistic-name <name>',
        'a line serving the route, e.g. "SvcPacket Express"',
      )
      .option('--by <name>', 'who asks, for the timeline')
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, flags: ChangeLogisticsFlags) => {
    const result = await withAccountOrders(flags, (orders) =>
      orders.changeLogistics(orderNumber, {
        logisticName: flags.logisticName,
        ...(flags.by !== undefined && { by: flags.by }),
      }),
    );
    reportAction('change-logistics', orderNumber, result, flags.json === true);
  });
}
