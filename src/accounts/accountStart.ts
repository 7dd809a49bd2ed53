/**
 * What every start and signal-with-start of a workflow carries about its supplier account
 * (docs/architecture.md §4): the `SupplierAccount` search attribute (the workflow's account,
 * src/durable/account.ts) and, when the starter knows it, the account's tier in the memo
 * `supplierTier` (the fairness weight of its supplier tasks). Continue-as-new carries both over.
 * Merge them with a start's own search attributes and memo; the account id is no secret.
 *
 * The start's priority makes the account the fairness key of the run's workflow tasks too: under
 * one account's backlog of new orders, the server hands out the orders queue's workflow tasks to
 * each account in turn, so another account's orders are not served after the whole backlog. The
 * turns are equal: a workflow task spends no supplier budget, and a weight by tier would put a
 * tier-1 account's tenth new order behind 54 of a tier-6 backlog's. An account's singletons go
 * before orders: one token, batch or sweep serves many.
 */
import type { Priority, SearchAttributePair } from '@temporalio/common';

import { DEFAULT_ACCOUNT, SUPPLIER_TIER_MEMO, type AccountSettings } from './contract.js';
import { SupplierAccount } from '../temporal/searchAttributes.js';
import { literal } from '../temporal/visibility.js';

/** An account as a starter knows it: its id, and its tier when it read the directory. */
export type AccountRef = Pick<AccountSettings, 'id'> & { tier?: number | undefined };

export interface AccountStartOptions {
  typedSearchAttributes: SearchAttributePair[];
  memo: Record<string, unknown>;
  priority: Priority;
}

/** Workflow tasks' priority keys on the orders queue (lower first; the server's default is 3). */
export const WorkflowPriority = {
  /** An account's session, checkout coordinator, sweeper, inbox: each serves many orders. */
  Singleton: 2,
  Order: 3,
} as const;
export type WorkflowPriority = (typeof WorkflowPriority)[keyof typeof WorkflowPriority];

export function accountStartOptions(
  account: AccountRef = { id: DEFAULT_ACCOUNT },
  priorityKey: WorkflowPriority = WorkflowPriority.Order,
): AccountStartOptions {
  return {
    typedSearchAttributes: [{ key: SupplierAccount, value: account.id }],
    memo: account.tier === undefined ? {} : { [SUPPLIER_TIER_MEMO]: account.tier },
    priority: { priorityKey, fairnessKey: account.id },
  };
}

/**
 * A visibility clause for the workflows of `account`: the default account's include the runs
 * started before accounts were data (no SupplierAccount).
 */
export function accountVisibilityFilter(account: string): string {
  const key = SupplierAccount.name;
  return account === DEFAULT_ACCOUNT
    ? `(${key} = '${DEFAULT_ACCOUNT}' OR ${key} IS NULL)`
    : `${key} = ${literal(account)}`;
}
