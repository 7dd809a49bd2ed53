/**
 * `dropflow amend <orderNumber> <file|->`: change an order's createOrderV3 body (a JSON object of
 * the fields to change; null removes an optional one) while the supplier does not have it yet.
 * Exit codes: 0 amended; 1 refused or not carried out (the workflow says why); 2 invalid changes
 * (`field: rule` lines on stderr).
 */
import type { Command } from 'commander';

import { OrderInvalidError } from '../../client/orderClient.js';
import { changesIssues, type OrderChanges } from '../../order/orderInput.js';
import { reportAction, reportIssues } from '../output.js';
import { readSource } from '../source.js';
import { orderCommand, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface AmendFlags extends TemporalFlags, AccountFlags {
  by?: string;
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    orderCommand(
      program,
      'amend',
      "change an order's address, contact, lines or logistics line before the supplier has it",
    )
      .argument('<file>', 'the fields to change as JSON (createOrderV3 names); - reads stdin')
      .option('--by <name>', 'who asks, for the timeline')
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, source: string, flags: AmendFlags) => {
    const json = flags.json === true;
    let raw: unknown;
    try {
      raw = JSON.parse(await readSource(source));
    } catch (err) {
      reportIssues([{ field: '(body)', rule: `must be JSON (${(err as Error).message})` }], json);
      return;
    }
    // Checked before connecting; the workflow checks the order they make.
    const issues = changesIssues(raw);
    if (issues.length > 0) {
      reportIssues(issues, json);
      return;
    }
    await withAccountOrders(flags, async (orders) => {
      try {
        const result = await orders.amend(orderNumber, {
          order: raw as OrderChanges,
          ...(flags.by !== undefined && { by: flags.by }),
        });
        reportAction('amend', orderNumber, result, json);
      } catch (err) {
        if (!(err instanceof OrderInvalidError)) throw err;
        reportIssues(err.issues, json);
      }
    });
  });
}
