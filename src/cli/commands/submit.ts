/**
 * `dropflow submit <file|->`: validate an order (createOrderV3 body + `fulfillment`, and `account`:
 * one of the registry's, default `default`) and start its workflow, once. Prints the workflow id and `started` or `existing`.
 * Exit codes: 0 started or existing; 2 invalid (`field: rule` lines on stderr); 3 the orderNumber
 * belongs to a different order.
 */
import type { Command } from 'commander';

import { loadAccountDirectory } from '../../accounts/registry.js';
import {
  NO_SUCH_ACCOUNT,
  OrderClient,
  OrderConflictError,
  OrderInvalidError,
} from '../../client/orderClient.js';
import { loadConfig } from '../../config/environment.js';
import { parseOrder } from '../../order/orderInput.js';
import { EXIT_CONFLICT, printJson, reportIssues } from '../output.js';
import { readSource } from '../source.js';
import { temporalOptions, withOrders, type TemporalFlags } from '../temporal.js';

interface SubmitFlags extends TemporalFlags {
  json?: boolean;
}

export function register(program: Command): void {
  temporalOptions(
    program
      .command('submit')
      .description('start the fulfilment of an order (a JSON file, or - for stdin); idempotent')
      .argument('<file>', 'the order as JSON: createOrderV3 body plus `fulfillment`; - reads stdin')
      .option('--json', 'print the outcome as one JSON document'),
    { queues: true },
  ).action(async (source: string, flags: SubmitFlags) => {
    const json = flags.json === true;
    const text = await readSource(source);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      reportIssues([{ field: '(body)', rule: `must be JSON (${(err as Error).message})` }], json);
      return;
    }
    // Checked before connecting, so a bad order is refused even with Temporal down.
    const parsed = parseOrder(raw);
    if (!parsed.ok) {
      reportIssues(parsed.issues, json);
      return;
    }
    // The order's account must be in the registry (ACCOUNTS_FILE); also checked before connecting.
    const accounts = await loadAccountDirectory(loadConfig());
    if (parsed.input.account !== undefined && accounts.get(parsed.input.account) === undefined) {
      reportIssues([{ field: 'account', rule: NO_SUCH_ACCOUNT }], json);
      return;
    }
    await withOrders(flags, async (cliOrders) => {
      const orders = new OrderClient(cliOrders.client, cliOrders.queues, {
        ...cliOrders.options,
        accounts,
      });
      try {
        const result = await orders.submit(raw);
        if (json) printJson(result);
        else process.stdout.write(`${result.workflowId} ${result.outcome}\n`);
      } catch (err) {
        if (err instanceof OrderInvalidError) {
          reportIssues(err.issues, json);
        } else if (err instanceof OrderConflictError) {
          if (json) {
            printJson({
              outcome: 'conflict',
              workflowId: err.workflowId,
              message: err.message,
              error: { message: err.message, code: 'ORDER_CONFLICT' },
            });
          } else {
            process.stderr.write(`dropflow: ${err.message}\n`);
          }
          process.exitCode = EXIT_CONFLICT;
        } else {
          throw err;
        }
      }
    });
  });
}
