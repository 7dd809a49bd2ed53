/**
 * `dropflow waybill <orderNumber> --carrier C --track-number T --file F`: hand a platform-logistics
 * order its shipping label (flow A); the file is sent base64.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Command } from 'commander';

import type { WaybillInput } from '../../order/contract.js';
import { WaybillSchema } from '../../order/orderInput.js';
import { toFieldIssues } from '../../supplier/issues.js';
import { reportAction, reportIssues } from '../output.js';
import { orderCommand, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface WaybillFlags extends TemporalFlags, AccountFlags {
  carrier: string;
  trackNumber: string;
  file: string;
  contentType?: string;
  json?: boolean;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
};

export function register(program: Command): void {
  temporalOptions(
    orderCommand(
      program,
      'waybill',
      'provide the waybill (carrier, tracking number, label file) of a flow A order',
    )
      .requiredOption('--carrier <name>', "a carrier the storage accepts, e.g. 'SF Express'")
      .requiredOption('--track-number <number>', "the carrier's tracking number")
      .requiredOption('--file <path>', 'the label file (PDF or image)')
      .option('--content-type <type>', 'the file type (default from its extension)')
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, flags: WaybillFlags) => {
    const json = flags.json === true;
    const content = await readFile(flags.file);
    const contentType = flags.contentType ?? CONTENT_TYPES[extname(flags.file).toLowerCase()];
    const checked = WaybillSchema.safeParse({
      carrier: flags.carrier,
      trackNumber: flags.trackNumber,
      filename: basename(flags.file),
      contentBase64: content.toString('base64'),
      ...(contentType !== undefined && { contentType }),
    });
    if (!checked.success) {
      reportIssues(toFieldIssues(checked.error), json);
      return;
    }
    const input: WaybillInput = checked.data;
    const result = await withAccountOrders(flags, (orders) =>
      orders.provideWaybill(orderNumber, input),
    );
    reportAction('waybill', orderNumber, result, json);
  });
}
