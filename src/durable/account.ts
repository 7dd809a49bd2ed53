/**
 * The supplier account the running workflow works for: its `SupplierAccount` search attribute,
 * which every starter sets and continue-as-new carries over. Runs started before accounts were
 * data have none and belong to the default account. Call inside a workflow only.
 */
import { defineSignal, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';

import { ACCOUNT_TIER_SIGNAL, DEFAULT_ACCOUNT, SUPPLIER_TIER_MEMO } from '../accounts/contract.js';
import { SupplierAccount } from '../temporal/searchAttributes.js';
import { Patch } from './versions.js';
import { has } from './patches.js';

export function workflowAccount(): string {
  return workflowInfo().typedSearchAttributes.get(SupplierAccount) ?? DEFAULT_ACCOUNT;
}

/**
 * The account's tier as its starter saw it in the registry (memo `supplierTier`): the fairness
 * weight of the workflow's supplier tasks. Undefined on runs started before accounts were data.
 */
export function accountTier(): number | undefined {
  const tier = workflowInfo().memo?.[SUPPLIER_TIER_MEMO];
  return typeof tier === 'number' && tier > 0 ? tier : undefined;
}

/**
 * The priority fields every activity of the workflow carries: its account as fairness key, so the
 * worker acts for that account (src/accounts/activityAccount.ts) and the server dispatches each
 * account's tasks in turn. On the supplier queue also the tier as weight: the server limits each
 * key to 1 request/s per unit of weight (src/accounts/supplierBudget.ts). A run without a tier in
 * its memo (started before accounts were data) leaves the weight unset: the server's default, 1,
 * the lowest tier, which no account is below.
 */
export function accountPriority(options: { weighted?: boolean } = {}): {
  fairnessKey: string;
  fairnessWeight?: number;
} {
  const tier = options.weighted === true ? accountTier() : undefined;
  return { fairnessKey: workflowAccount(), ...(tier !== undefined && { fairnessWeight: tier }) };
}

/**
 * The account as the last argument of an activity that acts for it outside the workflow (finds
 * its coordinator, routes its webhooks): none for the default account, whose activity inputs stay
 * as they were before accounts were data.
 */
export function ownAccount(): [] | [string] {
  const account = workflowAccount();
  return account === DEFAULT_ACCOUNT ? [] : [account];
}

/** The account's tier changed in the registry: the singleton takes it as its `supplierTier`. */
export const accountTierSignal = defineSignal<[number]>(ACCOUNT_TIER_SIGNAL);

/**
 * For the per-account singletons that live for weeks (checkout coordinator, tracking sweeper):
 * a tier change reaches them without a restart. The worker that notices it (its directory
 * changed, or the memo differs at start) signals `accountTier`; the run upserts its memo at once,
 * so the supplier tasks it schedules from then on carry the new weight, and continue-as-new
 * carries the memo over. Behind a patch: a signal an older worker received left no command.
 */
export function followAccountTier(): void {
  setHandler(accountTierSignal, (tier) => {
    if (!Number.isFinite(tier) || tier <= 0 || tier === accountTier()) return;
    if (has(Patch.AccountTier)) upsertMemo({ [SUPPLIER_TIER_MEMO]: tier });
  });
}
