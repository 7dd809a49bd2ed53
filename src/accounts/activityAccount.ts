/**
 * The account a running activity acts for: its task's fairness key, which every workflow sets to
 * its own account (src/durable/activityProxies.ts). No key (a task scheduled before accounts were
 * data) means the default account. Call inside an activity only.
 */
import { Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

import { DEFAULT_ACCOUNT, UNKNOWN_ACCOUNT_FAILURE, UnknownAccountError } from './contract.js';

export function activityAccount(): string {
  return accountOfTask(Context.current().info);
}

/** The account of an activity task of `info` (for the worker's tracing interceptor too). */
export function accountOfTask(info: Pick<Info, 'priority'>): string {
  const key = info.priority?.fairnessKey;
  return key === undefined || key === '' ? DEFAULT_ACCOUNT : key;
}

export function unknownAccount(id: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: UNKNOWN_ACCOUNT_FAILURE,
    message: new UnknownAccountError(id).message,
    details: [{ account: id }],
    nonRetryable: true,
  });
}
