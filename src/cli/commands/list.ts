/**
 * `dropflow list [--stage S] [--account A] [--late] [--limit N] [--json]`: orders from visibility,
 * newest first, each with its supplier account; `--late`: only those that missed a deadline
 * (docs/delivery-promises.md). A split order shows its parcels still on their way (count and codes).
 */
import { InvalidArgumentError, type Command } from 'commander';

import { Stage } from '../../order/contract.js';
import { isStage } from '../../client/orderClient.js';
import { nonNegativeInt } from '../options.js';
import { printJson, printLines, tableLines } from '../output.js';
import { accountOption, orderAccount, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, withOrders, type TemporalFlags } from '../temporal.js';

interface ListFlags extends TemporalFlags, AccountFlags {
  stage?: Stage;
  late?: boolean;
  limit: number;
  json?: boolean;
}

function stageOption(value: string): Stage {
  const upper = value.toUpperCase();
  if (!isStage(upper)) {
    throw new InvalidArgumentError(`must be one of ${Object.values(Stage).join(', ')}`);
  }
  return upper;
}

export function register(program: Command): void {
  temporalOptions(
    accountOption(
      program
        .command('list')
        .description('list orders (from the FulfillmentStage, SvcOrderId, … search attributes)'),
      "only the orders of this supplier account (default: every account's)",
    )
      .option(
        '--stage <stage>',
        'only orders in this stage (RECEIVED, NEEDS_ATTENTION, …)',
        stageOption,
      )
      .option('--late', 'only orders that missed a deadline (SlaBreached)')
      .option('--limit <n>', 'at most this many', nonNegativeInt, 100)
      .option('--json', 'print the orders as one JSON document'),
  ).action(async (flags: ListFlags) => {
    const account = flags.account === undefined ? undefined : (await orderAccount(flags)).id;
    const found = await withOrders(flags, (orders) =>
      orders.list({
        ...(flags.stage !== undefined && { stage: flags.stage }),
        ...(flags.late === true && { late: true }),
        ...(account !== undefined && { account }),
        limit: flags.limit,
      }),
    );
    if (flags.json === true) {
      printJson(found);
      return;
    }
    const table = [
      [
        'ORDER',
        'ACCOUNT',
        'STAGE',
        'FLOW',
        'SVC ORDER',
        'ATTENTION',
        'LATE',
        'PARCELS',
        'WORKFLOW',
        'STARTED',
      ],
      ...found.map((o) => [
        o.orderNumber,
        o.account,
        o.stage ?? '-',
        o.flow ?? '-',
        o.svcOrderId ?? '-',
        o.needsAttention ? 'yes' : '-',
        o.late?.join(',') ?? '-',
        o.parcels === undefined ? '-' : `${o.parcels.length}: ${o.parcels.join(',')}`,
        o.executionStatus,
        o.startedAt,
      ]),
    ];
    printLines(tableLines(table));
  });
}
