/**
 * `dropflow dispute <orderNumber> --message M [--line ID:QTY …] [--reissue] [--refund-to platform]
 * [--reason-id N] [--image URL …]`: open a dispute (refund or reissue) for a paid order, or find
 * the one the same request already opened; `--status` prints where it stands.
 */
import { InvalidArgumentError, type Command } from 'commander';

import { disputeStatus, openDispute } from '../../client/disputeClient.js';
import { disputeWorkflowId } from '../../client/definitions.js';
import { temporalOptions, withOrders, type TemporalFlags } from '../temporal.js';
import { formatStoreEvents } from './status.js';

interface DisputeFlags extends TemporalFlags {
  message: string;
  line: { lineItemId: string; quantity: number }[];
  reissue?: boolean;
  refundTo: 'balance' | 'platform';
  reasonId?: number;
  image: string[];
  json?: boolean;
}

function lineOption(value: string, previous: DisputeFlags['line']): DisputeFlags['line'] {
  const m = /^([^:]+):(\d+)$/.exec(value);
  if (!m) throw new InvalidArgumentError('must be <lineItemId>:<quantity>');
  return [...previous, { lineItemId: m[1]!, quantity: Number(m[2]) }];
}

export function register(program: Command): void {
  temporalOptions(
    program
      .command('dispute')
      .description('open a dispute (refund or reissue) for a paid order, once')
      .argument('<orderNumber>', 'the order name it was submitted with')
      .requiredOption('--message <text>', 'what went wrong (≤ 500 characters)')
      .option(
        '--line <id:qty>',
        'a line and how many units (repeatable; default: all)',
        lineOption,
        [],
      )
      .option('--reissue', 'ask for a reissue instead of a refund')
      .option(
        '--refund-to <where>',
        'balance or platform',
        (v) => {
          if (v !== 'balance' && v !== 'platform')
            throw new InvalidArgumentError('must be balance or platform');
          return v;
        },
        'balance',
      )
      .option('--reason-id <n>', 'a reason id the supplier offers (default: the first)', (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
        return n;
      })
      .option('--image <url>', 'a photo URL (repeatable)', (v, prev: string[]) => [...prev, v], [])
      .option('--json', 'print the answer as one JSON document'),
    { queues: true },
  ).action(async (orderNumber: string, flags: DisputeFlags) => {
    const opened = await withOrders(flags, async (orders) => {
      const o = await openDispute(orders, orderNumber, {
        lines: flags.line,
        expect: flags.reissue === true ? 'reissue' : 'refund',
        refundTo: flags.refundTo,
        ...(flags.reasonId !== undefined && { reasonId: flags.reasonId }),
        message: flags.message,
        imageUrls: flags.image,
      });
      return { ...o, status: await disputeStatus(orders, o.workflowId).catch(() => undefined) };
    });
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify(opened)}\n`);
      return;
    }
    process.stdout.write(
      `${opened.workflowId} ${opened.outcome}` +
        (opened.status ? ` (${opened.status.stage})` : '') +
        (opened.status?.storeEvents !== undefined
          ? `\nstore events: ${formatStoreEvents(opened.status.storeEvents)}`
          : '') +
        `\nfollow it: temporal workflow query --workflow-id '${disputeWorkflowId(orderNumber, opened.businessDisputeId)}' --name status\n`,
    );
  });
}
