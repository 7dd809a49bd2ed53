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
} as const;
