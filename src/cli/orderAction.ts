/**
 * The commands that ask one order to do something (`resume`, `cancel`, `approve-payment`,
 * `change-logistics`): `<orderNumber>`, `--account`, the action's own options, `--by`, `--json`
 * and the Temporal options; the order's answer goes to stdout, and exit 1 when not carried out.
 */
import type { Command } from 'commander';

import type { OrderClient } from '../client/orderClient.js';
import { reportAction } from './output.js';
import { orderCommand, withAccountOrders, type AccountFlags } from './orderAccount.js';
import { temporalOptions, type TemporalFlags } from './temporal.js';

export interface OrderActionFlags extends TemporalFlags, AccountFlags {
  by?: string;
  json?: boolean;
}

type ActionResult = Parameters<typeof reportAction>[2];

export interface OrderAction<F extends OrderActionFlags> {
  name: string;
  description: string;
  /** What `--by` names, for the timeline. */
  by: string;
  /** The action's own options, between `--account` and `--by`. */
  options: (command: Command) => Command;
  send: (orders: OrderClient, orderNumber: string, flags: F) => Promise<ActionResult>;
}

export function registerOrderAction<F extends OrderActionFlags>(
  program: Command,
  action: OrderAction<F>,
): void {
  temporalOptions(
    action
      .options(orderCommand(program, action.name, action.description))
      .option('--by <name>', action.by)
      .option('--json', 'print the answer as one JSON document'),
  ).action(async (orderNumber: string, flags: F) => {
    const result = await withAccountOrders(flags, (orders) =>
      action.send(orders, orderNumber, flags),
    );
    reportAction(action.name, orderNumber, result, flags.json === true);
  });
}

/** `{ by }` when `--by` was given. */
export function byOf(flags: OrderActionFlags): { by?: string } {
  return flags.by !== undefined ? { by: flags.by } : {};
}
