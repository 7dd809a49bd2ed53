/** Supplier calls of one sandbox account between two snapshots of its counters. */
import type { Sandbox } from '../sandbox/sandbox.js';
import { emptyStats, type SandboxStats } from '../sandbox/state.js';

export interface CallCount {
  /** Every request the account sent, answered or refused. */
  total: number;
  byPath: Record<string, number>;
  /** Of those, refused as over the rate limit (1600200). */
  rateLimited: number;
  /** Payment calls the supplier accepted (a refused or repeated one is not a payment). */
  payments: number;
}

export function statsOf(sandbox: Sandbox, openId: string): SandboxStats {
  return structuredClone(sandbox.state.statsByAccount[openId] ?? emptyStats());
}

export function callsBetween(before: SandboxStats, after: SandboxStats): CallCount {
  const byPath: Record<string, number> = {};
  let total = 0;
  for (const [path, n] of Object.entries(after.calls)) {
    const delta = n - (before.calls[path] ?? 0);
    if (delta <= 0) continue;
    byPath[path] = delta;
    total += delta;
  }
  return {
    total,
    byPath,
    rateLimited: after.rateLimited - before.rateLimited,
    payments: after.payments - before.payments,
  };
}

/** The account's orders as the supplier has them: created, and paid. */
export function supplierCounts(
  sandbox: Sandbox,
  openId: string,
): { created: number; paid: number } {
  let created = 0;
  let paid = 0;
  for (const order of Object.values(sandbox.state.orders)) {
    if (order.openId !== openId) continue;
    created += 1;
    if (order.paidAt !== undefined) paid += 1;
  }
  return { created, paid };
}
