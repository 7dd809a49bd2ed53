/**
 * Supplier calls per order: how far the run's mutating calls stayed batched. The checkout calls
 * (addCart, addCartConfirm, saveGenerateParentOrder, payBalanceV2) are sent once per batch, so a
 * lost answer that scatters a batch shows here as a count per order well above 4 / batch size.
 */
import { takenCalls, type SandboxStats } from '../sandbox/state.js';
import { CHECKOUT_PATHS, COMMITTING_PATHS } from './plan.js';

export interface SupplierCalls {
  /** The mutating calls the supplier took, by endpoint path (rate-limit refusals not counted). */
  byPath: Record<string, number>;
  /** Every mutating call (create, the checkout calls, waybill) per order. */
  perOrder: number;
  /** The checkout calls per order: the batch's share, what scattered batches inflate. */
  checkoutPerOrder: number;
}

function perOrder(calls: number, orders: number): number {
  return orders === 0 ? 0 : Math.round((100 * calls) / orders) / 100;
}

export function supplierCalls(stats: SandboxStats, orders: number): SupplierCalls {
  const byPath = Object.fromEntries(COMMITTING_PATHS.map((p) => [p, takenCalls(stats, p)]));
  const sum = (paths: readonly string[]): number => paths.reduce((n, p) => n + (byPath[p] ?? 0), 0);
  return {
    byPath,
    perOrder: perOrder(sum(COMMITTING_PATHS), orders),
    checkoutPerOrder: perOrder(sum(CHECKOUT_PATHS), orders),
  };
}
