/**
 * The supplier account the running workflow works for: its `SupplierAccount` search attribute,
 * which every starter sets and continue-as-new carries over. Runs started before accounts were
 * data have none and belong to the default account. Call inside a workflow only.
 */
import { workflowInfo } from '@temporalio/workflow';

import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import { SupplierAccount } from '../temporal/searchAttributes.js';

export function workflowAccount(): string {
  return workflowInfo().typedSearchAttributes.get(SupplierAccount) ?? DEFAULT_ACCOUNT;
}
