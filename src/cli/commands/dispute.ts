/**
 * `dropflow dispute reasons|open|cancel|status <orderNumber>`: disputes as an operator handles them.
 *
 * - `reasons`: what the supplier offers to dispute now (lines, reasons, the refundable amount),
 *   asked with the account's session token (a worker must run);
 * - `open --reason <id> --expect refund|reissue [--line ID:QTY …] [--message M]`: one dispute
 *   workflow per request (the same request again finds the first);
 * - both take `--parcel <code>`, required for an order the supplier split: the parcel whose lines
 *   are disputed;
 * - `cancel [--reason R]`: the `cancel` Update of the order's open dispute workflow;
 * - `status`: every dispute of the order, with its outcome, money, reissued order and store events.
 */
import { InvalidArgumentError, type Command } from 'commander';

import type { DisputeStatus } from '../../dispute/contract.js';
import {
  cancelDisputeWorkflow,
  disputedOrder,
  disputeStatus,
  disputeTerms,
  openDispute,
  orderDisputes,
  type DisputeTermsView,
  type OrderDispute,
} from '../../client/disputeClient.js';
import { failureText } from '../../supplier/failureDetails.js';
import type { OrderClient } from '../../client/orderClient.js';
import { loadConfig } from '../../config/environment.js';
import { CommandError } from '../failure.js';
import { nonNegativeInt, positiveInt } from '../options.js';
import { printJson, printLines, reportAction } from '../output.js';
import { patientRead, sessionSupplier } from '../supplier.js';
import {
  orderCommand,
  orderAccount,
  withAccountOrders,
  type AccountFlags,
} from '../orderAccount.js';
import {
  connectTemporal,
  temporalOptions,
  type TemporalClient,
  type TemporalFlags,
} from '../temporal.js';
import { formatStoreEvents } from './status.js';

type Line = { lineItemId: string; quantity: number };

function lineOption(value: string, previous: Line[]): Line[] {
  const m = /^([^:]+):(\d+)$/.exec(value);
  if (!m || Number(m[2]) < 1) throw new InvalidArgumentError('must be <lineItemId>:<quantity ≥ 1>');
  return [...previous, { lineItemId: m[1]!, quantity: Number(m[2]) }];
}

function oneOf<T extends string>(...values: T[]): (v: string) => T {
  return (v) => {
    if (values.includes(v as T)) return v as T;
    throw new InvalidArgumentError(`must be ${values.join(' or ')}`);
  };
}

const PARCEL_HELP =
  'the parcel (its supplier order code, `status` lists them) whose lines are disputed; required for a split order';

/** finallyDeal as the supplier numbers the outcomes. */
const FINALLY_DEAL = { refund: 1, reissue: 2, reject: 3 } as const;

/**
 * Runs `fn` with the order's svcOrderId and a supplier client on the account's session token;
 * `temporal.orders` addresses the orders of the command's account.
 */
async function withSupplier<T>(
  flags: TemporalFlags & AccountFlags & { parcel?: string },
  orderNumber: string,
  fn: (
    terms: (lines?: Line[]) => Promise<DisputeTermsView>,
    temporal: TemporalClient,
  ) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const account = await orderAccount(flags, config);
  const connected = await connectTemporal(flags);
  const temporal = { ...connected, orders: connected.orders.forAccount(account.id) };
  const supplier = sessionSupplier(temporal, config, account);
  try {
    let svcOrderId: string;
    try {
      svcOrderId = disputedOrder(await temporal.orders.status(orderNumber), flags.parcel);
    } catch (err) {
      throw new CommandError((err as Error).message, 'NOT_DISPUTABLE', 2);
    }
    return await fn(
      (lines) => patientRead(() => disputeTerms(supplier, orderNumber, svcOrderId, lines)),
      temporal,
    );
  } finally {
    await supplier.close();
    await connected.close();
  }
}

export function formatTerms(t: DisputeTermsView): string[] {
  const lines = t.lines.map(
    (l) =>
      `  ${l.lineItemId}  ${l.quantity} × ${l.price.toFixed(2)} USD  ${l.canChoose ? 'disputable' : 'not disputable now'}` +
      `${l.sku !== undefined ? `  ${l.sku}` : ''}${l.name !== undefined ? `  ${l.name}` : ''}`,
  );
  const out = [`order ${t.orderNumber} (svc order ${t.svcOrderId})`, 'lines:', ...lines];
  if (t.reasons.length === 0) {
    out.push('nothing can be disputed now (an unfinished dispute, or every unit disputed)');
    return out;
  }
  out.push(
    'reasons (--reason):',
    ...t.reasons.map((r) => `  ${r.disputeReasonId}  ${r.reasonName}`),
    `refundable up to ${t.maxAmount?.toFixed(2) ?? '?'} USD; --expect ${t.expect.join(' or ')}`,
  );
  return out;
}

interface ListedDispute extends OrderDispute {
  status?: DisputeStatus;
  finallyDeal?: number;
}

/** The order's disputes with their status (a closed one whose status cannot be read: without). */
async function listed(orders: OrderClient, orderNumber: string): Promise<ListedDispute[]> {
  const found = await orderDisputes(orders, orderNumber);
  return Promise.all(
    found.map(async (d) => {
      const status = await disputeStatus(orders, d.workflowId).catch(() => undefined);
      const result = status?.outcome?.result;
      return {
        ...d,
        ...(status !== undefined && { status }),
        ...(result !== undefined && { finallyDeal: FINALLY_DEAL[result] }),
      };
    }),
  );
}

export function formatDisputes(orderNumber: string, disputes: readonly ListedDispute[]): string[] {
  if (disputes.length === 0) return [`no dispute for order ${orderNumber}`];
  return disputes.flatMap((d) => {
    const s = d.status;
    const o = s?.outcome;
    const rows: [string, string | undefined][] = [
      ['workflow', `${d.workflowId} (${d.running ? 'open' : 'closed'}, started ${d.startedAt})`],
      ['supplier dispute', s?.disputeId],
      ['parcel', s?.parcel],
      ['reason', s?.reason],
      ['asked', s?.amount !== undefined ? `${s.amount.toFixed(2)} USD` : undefined],
      [
        'outcome',
        o === undefined
          ? undefined
          : `${o.result} (finallyDeal ${FINALLY_DEAL[o.result]})` +
            (o.money !== undefined ? `, ${o.money.toFixed(2)} USD refunded` : ''),
      ],
      ['reissued order', o?.resendOrderCode],
      ['waiting for', s?.waitingFor],
      [
        'error',
        s?.error === undefined
          ? undefined
          : `${failureText(s.error)}${s.error.code !== undefined ? ` (code ${s.error.code})` : ''}`,
      ],
      ['store events', s?.storeEvents === undefined ? undefined : formatStoreEvents(s.storeEvents)],
    ];
    const present = rows.filter((r): r is [string, string] => r[1] !== undefined);
    const width = Math.max(...present.map(([label]) => label.length));
    return [
      `dispute ${d.businessDisputeId}  ${s?.stage ?? '(status not readable)'}`,
      ...present.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
      ...(s?.timeline ?? []).map(
        (t) => `  ${t.at}  ${t.stage}${t.note !== undefined ? `  ${t.note}` : ''}`,
      ),
    ];
  });
}

interface OpenFlags extends TemporalFlags, AccountFlags {
  parcel?: string;
  reason: number;
  expect: 'refund' | 'reissue';
  line: Line[];
  message?: string;
  refundTo: 'balance' | 'platform';
  image: string[];
  checkEvery: number;
  json?: boolean;
}

interface CancelFlags extends TemporalFlags, AccountFlags {
  reason: string;
  by?: string;
  dispute?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const dispute = program
    .command('dispute')
    .description('disputes of a paid order: reasons, open, cancel, status')
    // Each subcommand's options follow its name.
    .enablePositionalOptions();
  reasonsCommand(dispute);
  openCommand(dispute);
  cancelCommand(dispute);
  statusCommand(dispute);
}

function reasonsCommand(dispute: Command): void {
  temporalOptions(
    orderCommand(
      dispute,
      'reasons',
      'what the supplier offers to dispute now: lines, reasons, refundable amount',
    )
      .option('--parcel <code>', PARCEL_HELP)
      .option('--json', 'print them as one JSON document'),
    { queues: true },
  ).action(
    async (
      orderNumber: string,
      flags: TemporalFlags & AccountFlags & { json?: boolean; parcel?: string },
    ) => {
      const terms = await withSupplier(flags, orderNumber, (ask) => ask());
      if (flags.json === true) printJson(terms);
      else printLines(formatTerms(terms));
    },
  );
}

function openCommand(dispute: Command): void {
  temporalOptions(
    orderCommand(dispute, 'open', 'open a dispute (refund or reissue), once per request')
      .option('--parcel <code>', PARCEL_HELP)
      .requiredOption('--reason <id>', 'a reason id `dispute reasons` lists', nonNegativeInt)
      .requiredOption('--expect <what>', 'refund or reissue', oneOf('refund', 'reissue'))
      .option(
        '--line <id:qty>',
        'a line and how many units (repeatable; default: all)',
        lineOption,
        [],
      )
      .option('--message <text>', 'what went wrong (≤ 500 characters)')
      .option('--refund-to <where>', 'balance or platform', oneOf('balance', 'platform'), 'balance')
      .option('--image <url>', 'a photo URL (repeatable)', (v, prev: string[]) => [...prev, v], [])
      .option(
        '--check-every <s>',
        "seconds between the workflow's looks at the outcome (the supplier pushes none)",
        positiveInt,
        3_600,
      )
      .option('--json', 'print the answer as one JSON document'),
    { queues: true },
  ).action(async (orderNumber: string, flags: OpenFlags) => {
    const opened = await withSupplier(flags, orderNumber, async (ask, temporal) => {
      // The workflow takes the first reason offered for one it is not offered: refuse it here.
      const terms = await ask(flags.line);
      if (terms.reasons.length === 0) {
        throw new CommandError(
          `order ${orderNumber}: nothing can be disputed now (an unfinished dispute, or every unit disputed)`,
          'NOT_DISPUTABLE',
        );
      }
      if (!terms.reasons.some((r) => r.disputeReasonId === flags.reason)) {
        const offered = terms.reasons.map((r) => `${r.disputeReasonId} ${r.reasonName}`);
        throw new CommandError(
          `reason ${flags.reason} is not offered for order ${orderNumber}; offered: ${offered.join(', ')}`,
          'REASON_NOT_OFFERED',
          2,
        );
      }
      const o = await openDispute(temporal.orders, orderNumber, {
        ...(flags.parcel !== undefined && { parcel: flags.parcel }),
        lines: flags.line,
        expect: flags.expect,
        refundTo: flags.refundTo,
        reasonId: flags.reason,
        message: flags.message ?? `${flags.expect} asked from the command line`,
        imageUrls: flags.image,
        checkEverySeconds: flags.checkEvery,
      });
      const status = await disputeStatus(temporal.orders, o.workflowId).catch(() => undefined);
      return { ...o, ...(status !== undefined && { status }) };
    });
    if (flags.json === true) {
      printJson(opened);
      return;
    }
    printLines([
      `${opened.workflowId} ${opened.outcome}${opened.status ? ` (${opened.status.stage})` : ''}`,
      `follow it: dropflow dispute status ${orderNumber}${flags.account !== undefined ? ` --account ${flags.account}` : ''}`,
    ]);
  });
}

function cancelCommand(dispute: Command): void {
  temporalOptions(
    orderCommand(dispute, 'cancel', "cancel the order's open dispute (at the supplier too)")
      .option('--reason <text>', 'why, for the timeline', 'cancelled from the command line')
      .option('--by <name>', 'who asks, for the timeline')
      .option('--dispute <businessDisputeId>', 'which one, when the order has several open')
      .option('--json', 'print the answer as one JSON document'),
    { queues: true },
  ).action(async (orderNumber: string, flags: CancelFlags) => {
    const result = await withAccountOrders(flags, async (orders) => {
      const open = (await orderDisputes(orders, orderNumber)).filter(
        (d) => d.running && (flags.dispute === undefined || d.businessDisputeId === flags.dispute),
      );
      if (open.length === 0) {
        throw new CommandError(`order ${orderNumber} has no open dispute`, 'NO_OPEN_DISPUTE');
      }
      if (open.length > 1) {
        throw new CommandError(
          `order ${orderNumber} has ${open.length} open disputes: name one with --dispute ` +
            open.map((d) => d.businessDisputeId).join(' or '),
          'SEVERAL_OPEN_DISPUTES',
          2,
        );
      }
      return cancelDisputeWorkflow(orders, orderNumber, open[0]!.workflowId, {
        reason: flags.reason,
        ...(flags.by !== undefined && { by: flags.by }),
      });
    });
    reportAction('cancel dispute', orderNumber, result, flags.json === true);
  });
}

function statusCommand(dispute: Command): void {
  temporalOptions(
    orderCommand(
      dispute,
      'status',
      "the order's disputes: stage, outcome, money, reissued order, store events",
    ).option('--json', 'print them as one JSON document'),
    { queues: true },
  ).action(
    async (orderNumber: string, flags: TemporalFlags & AccountFlags & { json?: boolean }) => {
      const disputes = await withAccountOrders(flags, (orders) => listed(orders, orderNumber));
      if (flags.json === true) printJson({ orderNumber, disputes });
      else printLines(formatDisputes(orderNumber, disputes));
    },
  );
}
