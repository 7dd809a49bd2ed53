/**
 * Who calls the order intake (docs/accounts.md, "Tenants"): the operator, with GATEWAY_TOKEN, acts
 * on every account; a store, with one of its intake tokens (an account's `intakeTokenSha256`),
 * acts on those accounts only. Tokens are compared by their SHA-256, never kept or logged in clear;
 * the directory is asked at each request, so a token added or removed in the registry counts at
 * once.
 */
import { createHash } from 'node:crypto';

import type { AccountDirectory } from '../accounts/contract.js';
import { bearerCheck } from './bearer.js';

export type Caller = { operator: true } | { operator: false; accounts: ReadonlySet<string> };

/** The caller a request's Authorization header names, or undefined (answer 401). */
export type CallerCheck = (authorization: string | undefined) => Caller | undefined;

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

export function callerCheck(
  operatorToken: string | undefined,
  accounts: AccountDirectory | undefined,
): CallerCheck {
  const operator = bearerCheck(operatorToken);
  return (authorization) => {
    if (operator(authorization)) return { operator: true };
    const match = BEARER.exec(authorization ?? '');
    if (match === null || accounts === undefined) return undefined;
    const hash = createHash('sha256').update(match[1]!, 'utf8').digest('hex');
    const mine = accounts
      .list()
      .filter((a) => a.intakeTokenSha256.includes(hash))
      .map((a) => a.id);
    return mine.length === 0 ? undefined : { operator: false, accounts: new Set(mine) };
  };
}

export function mayActOn(caller: Caller, account: string): boolean {
  return caller.operator || caller.accounts.has(account);
}

/** What a 403 says: the token's accounts are the caller's own to know. */
export function forbidden(caller: Caller, account: string): { error: string; message: string } {
  const mine = caller.operator ? [] : [...caller.accounts].sort();
  return {
    error: 'forbidden',
    message: `this token may act on the orders of ${mine.map((a) => `"${a}"`).join(', ')} only, not of account "${account}"`,
  };
}
