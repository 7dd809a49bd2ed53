/**
 * `dropflow list [--stage S] [--late] [--limit N] [--json]`: orders from visibility, newest first;
 * `--late`: only those that missed a deadline (docs/delivery-promises.md).
 */
import { InvalidArgumentError, type Command } from 'commander';

import { Stage } from '../../order/contract.js';
import { isStage } from '../../client/orderClient.js';
import { nonNegativeInt } from '../options.js';
import { printJson, printLines } from '../output.js';
import { temporalOptions, withOrders, type TemporalFlags } from '../temporal.js';

interface ListFlags extends TemporalFlags {
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
    program
      .command('list')
      .description('list orders (from the FulfillmentStage, SvcOrderId, … search attributes)')
      .option(
        '--stage <stage>',
        'only orders in this stage (RECEIVED, NEEDS_ATTENTION, …)',
        stageOption,
      )
      .option('--late', 'only orders that missed a deadline (SlaBreached)')
      .option('--limit <n>', 'at most this many', nonNegativeInt, 100)
      .option('--json', 'print the orders as one JSON document'),
  ).action(async (flags: ListFlags) => {
    const found = await withOrders(flags, (orders) =>
      orders.list({
        ...(flags.stage !== undefined && { stage: flags.stage }),
        ...(flags.late === true && { late: true }),
        limit: flags.limit,
      }),
    );
    if (flags.json === true) {
      printJson(found);
      return;
    }
    const table = [
      ['ORDER', 'STAGE', 'FLOW', 'SVC ORDER', 'ATTENTION', 'LATE', 'WORKFLOW', 'STARTED'],
      ...found.map((o) => [
        o.orderNumber,
        o.stage ?? '-',
        o.flow ?? '-',
        o.svcOrderId ?? '-',
        o.needsAttention ? 'yes' : '-',
        o.late?.join(',') ?? '-',
        o.executionStatus,
        o.startedAt,
      ]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    printLines(
      table.map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      ),
    );
  });
}
