/** `dropflow approve-payment <orderNumber>`: let an order waiting for approval be paid. */
import type { Command } from 'commander';

import { reportAction } from '../output.js';
import { accountOption, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface ApproveFlags extends TemporalFlags, AccountFlags {
  note?: string;
  by?: string;
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    accountOption(
      program
        .command('approve-payment')
        .description('approve the payment of an order that waits for it (payment policy)')
        .argument('<orderNumber>', 'the order name it was submitted with'),
    )
      .option('--note <text>', 'for the timeline')
      .option('--by <name>', 'who approves, for the timeline')
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, flags: ApproveFlags) => {
    const result = await withAccountOrders(flags, (orders) =>
      orders.approvePayment(orderNumber, {
        ...(flags.note !== undefined && { note: flags.note }),
        ...(flags.by !== undefined && { by: flags.by }),
      }),
    );
    reportAction('approve-payment', orderNumber, result, flags.json === true);
  });
}
