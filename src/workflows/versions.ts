/**
 * Patch ids of workflow changes that running workflows must not see mid-way
 * (docs/changing-workflows.md). A patch id is never reused; one is removed only with its old
 * branch, once no open workflow started before it.
 */
export const Patch = {
  /**
   * fulfillOrder and disputeOrder on the reconciling supplier step (steps/supplierStep.ts).
   * Workflows started before it finish on the frozen code in ./v1.
   */
  ReconcilingSteps: 'reconciling-steps-2026-11',
  /**
   * fulfillOrder checks out with its account's other orders (checkout/coordinator.ts) and writes
   * search attributes only when they change, once per workflow task. Orders started before it
   * check out alone to the end.
   */
  BatchedCheckout: 'batched-checkout-2026-11',
  /**
   * trackingSweep continues as new page by page, matches the supplier's answers by every id and
   * flags orders the supplier went quiet about. Sweeps started before it finish on ./v1.
   */
  TrackingSweepPages: 'tracking-sweep-pages-2026-11',
  /**
   * followDelivery stops at NEEDS_ATTENTION on the sweeper's `stale` news (steps/shipment.ts).
   */
  TrackingStaleFlags: 'tracking-stale-flags-2026-11',
  /**
   * Order and dispute workflows tell the store what happened (storeEventOutbox.ts). Asked at each
   * emission: workflows running before it emit from their next event on.
   */
  StoreEvents: 'store-events-2026-11',
  /**
   * disputeOrder adopts only the dispute its create opened (disputeMatch.ts), follows it by a
   * matched id and continues as new. Decided at the start: disputes started before finish on
   * ./v2.
   */
  DisputeAdopt: 'dispute-adopt-2026-11',
} as const;
