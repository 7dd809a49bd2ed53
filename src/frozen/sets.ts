/**
 * The frozen code sets: workflow code kept only so that runs started before a patch can finish on
 * the path they recorded (docs/changing-workflows.md, "Retiring frozen code"). A set is retired
 * when its code is removed; its entry stays, marked `retired`, so that every worker checks before
 * it polls that no open run still needs it (src/cli/frozenRuns.ts).
 */
// The catalog the CLI and the worker read, not workflow code: it may import live patch ids and names.
import { Patch } from '../durable/versions.js';
import { CHECKOUT_WORKFLOW } from '../checkout/contract.js';
import { ORDER_WORKFLOW } from '../order/contract.js';
import { DISPUTE_WORKFLOW } from '../dispute/contract.js';

export interface FrozenSet {
  /** What the set is called in logs and in `dropflow frozen`. */
  id: string;
  /** Where its code lives (or lived). */
  code: string;
  /** The patch whose old branch runs this code. */
  patch: string;
  /** The workflow types that may take the old branch. */
  workflowTypes: readonly string[];
  /**
   * When the patch shipped (ISO 8601, UTC): a run of these types started earlier may be on the
   * old branch. Later runs took the patch, or, on a deployment that took it later, are caught by
   * the replay gate, which replays the oldest open run of every type.
   */
  shipped: string;
  /** The code is removed: a worker refuses to start while a run started before `shipped` is open. */
  retired: boolean;
}

export const FROZEN_SETS: readonly FrozenSet[] = [
  {
    id: 'v1',
    code: 'src/frozen/v1 (all but checkout/ and trackingSweep.ts)',
    patch: Patch.ReconcilingSteps,
    workflowTypes: [ORDER_WORKFLOW, DISPUTE_WORKFLOW],
    shipped: '2026-11-24T00:00:00Z',
    retired: false,
  },
  {
    id: 'v1-tracking-sweep',
    code: 'src/frozen/v1/trackingSweep.ts',
    patch: Patch.TrackingSweepPages,
    workflowTypes: ['trackingSweep'],
    shipped: '2026-11-24T00:00:00Z',
    retired: true,
  },
  {
    id: 'v1-checkout',
    code: 'src/frozen/v1/checkout',
    patch: Patch.CheckoutCoordinator,
    workflowTypes: [CHECKOUT_WORKFLOW],
    shipped: '2026-11-26T00:00:00Z',
    retired: false,
  },
  {
    id: 'v2-dispute',
    code: 'src/frozen/v2',
    patch: Patch.DisputeAdopt,
    workflowTypes: [DISPUTE_WORKFLOW],
    shipped: '2026-11-26T00:00:00Z',
    retired: false,
  },
];
