/**
 * `--account <id>` of the commands that name an order by its number: an order of an account other
 * than `default` has a workflow id of its own (`orderWorkflowId`, order/contract.ts), which the
 * OrderClient of that account (`forAccount`) addresses. The account is checked before connecting:
 * its id's form, then the registry (ACCOUNTS_FILE).
 */
import type { Command } from 'commander';

import {
  ACCOUNT_ID_RULE,
  DEFAULT_ACCOUNT,
  isAccountId,
  UnknownAccountError,
} from '../accounts/contract.js';
import { readRegistry } from '../accounts/registryFile.js';
import type { OrderClient } from '../client/orderClient.js';
import { accountsFile, loadConfig, type Config } from '../config/environment.js';
import { CommandError } from './failure.js';
import { EXIT_INVALID } from './output.js';
import { withOrders, type TemporalFlags } from './temporal.js';

export interface AccountFlags {
  account?: string;
}

/** The account a command named: its id, and its supplier's base URL when the registry sets one. */
export interface NamedAccount {
  id: string;
  baseUrl?: string;
}

/** Adds `--account <id>` to a command that names an order by its number. */
export function accountOption(
  command: Command,
  description = "the order's supplier account (default: default)",
): Command {
  return command.option('--account <id>', description);
}

/** A subcommand of `parent` on one order: `<orderNumber>` and `--account`. */
export function orderCommand(parent: Command, name: string, description: string): Command {
  return accountOption(
    parent
      .command(name)
      .description(description)
      .argument('<orderNumber>', 'the order name it was submitted with'),
  );
}

/** The command's account (default `default`); a malformed or unknown one is refused (exit 2). */
export async function orderAccount(
  flags: AccountFlags,
  config: Config = loadConfig(),
): Promise<NamedAccount> {
  const id = flags.account ?? DEFAULT_ACCOUNT;
  if (!isAccountId(id)) {
    throw new CommandError(`--account: ${ACCOUNT_ID_RULE}`, 'INVALID_INPUT', EXIT_INVALID);
  }
  if (id === DEFAULT_ACCOUNT) return { id };
  // No secret is opened: naming an account needs no payload key.
  const { accounts } = await readRegistry(accountsFile(config));
  const stored = accounts.find((a) => a.id === id);
  if (stored === undefined) throw unknownAccount(id);
  return { id, ...(stored.baseUrl !== undefined && { baseUrl: stored.baseUrl }) };
}

/** The refusal of an account the registry does not have. */
export function unknownAccount(account: string): CommandError {
  return new CommandError(
    new UnknownAccountError(account).message,
    'UNKNOWN_ACCOUNT',
    EXIT_INVALID,
  );
}

/** `withOrders`, with the OrderClient that addresses the orders of the command's `--account`. */
export async function withAccountOrders<T>(
  flags: TemporalFlags & AccountFlags,
  fn: (orders: OrderClient) => Promise<T>,
): Promise<T> {
  const account = await orderAccount(flags);
  return withOrders(flags, (orders) => fn(orders.forAccount(account.id)));
}
