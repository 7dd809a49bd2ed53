/**
 * The workflows of a versioned worker (WORKER_DEPLOYMENT_NAME): the same as src/workflows.ts, each
 * with its versioning behaviour (docs/changing-workflows.md, "Versioned deploys").
 *
 * A separate bundle entry, because the server refuses a workflow task that declares a behaviour
 * from a worker that polls unversioned: the unversioned worker bundles src/workflows.ts, where
 * nothing is declared.
 *
 * - AUTO_UPGRADE: runs that live for weeks (orders, disputes) or for ever (the account's
 *   singletons). They move to the current version at their next task and keep their recorded path
 *   through `patched()` (rule 3): a fix reaches them, and no build has to run for weeks.
 * - PINNED: runs that end within minutes. They finish on the build they started on, which then
 *   drains; their code needs no patch to change.
 */
import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions } from '@temporalio/workflow';

import * as workflows from './workflows.js';

const VERSIONING_BEHAVIOUR: Readonly<Record<keyof typeof workflows, VersioningBehavior>> = {
  fulfillOrder: 'AUTO_UPGRADE',
  disputeOrder: 'AUTO_UPGRADE',
  accountCheckout: 'AUTO_UPGRADE',
  supplierSession: 'AUTO_UPGRADE',
  trackingSweeper: 'AUTO_UPGRADE',
  webhookInbox: 'AUTO_UPGRADE',
  catalogueEvents: 'AUTO_UPGRADE',
  storeOrderSweep: 'AUTO_UPGRADE',
  // The one-off sweep (and the runs an earlier release's schedule started): a few pages.
  trackingSweep: 'PINNED',
};

for (const [type, fn] of Object.entries(workflows)) {
  setWorkflowOptions(
    { versioningBehavior: VERSIONING_BEHAVIOUR[type as keyof typeof workflows] },
    fn as () => Promise<unknown>,
  );
}

export * from './workflows.js';
