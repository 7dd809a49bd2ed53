/**
 * Worker Deployment Versioning on the real dev server (docs/changing-workflows.md, "Versioned
 * deploys"): a versioned worker serves orders once its version is current, each workflow type runs
 * with its declared behaviour, the replay gate of a build replays the runs that build would take
 * over; and without a deployment name everything stays unversioned.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { decodeVersioningBehavior, type WorkerDeploymentVersion } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';

import { ORDER_WORKFLOW, Stage, orderWorkflowId } from '../../src/order/contract.js';
import type { OrderInput } from '../../src/order/orderInput.js';
import { openWorkflowsToReplay, replayOpenWorkflows } from '../../src/replayCheck.js';
import { versionName } from '../../src/temporal/deployment.js';
import { VERSIONED_WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { eventually } from '../support/eventually.js';
import { silentLogger as quiet } from '../support/logger.js';
import {
  reachStage,
  startOrder,
  sweepOnce,
  useOrderHarness,
  validOrder,
  type OrderHarness,
} from '../support/orders.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';

const deploymentName = `dropflow-test-${process.pid}-${Date.now().toString(36)}`;
const build1: WorkerDeploymentVersion = { deploymentName, buildId: 'build-1' };
const build2: WorkerDeploymentVersion = { deploymentName, buildId: 'build-2' };

describe('a versioned worker (WORKER_DEPLOYMENT_NAME)', () => {
  const h = useOrderHarness('versioned', undefined, { deployment: build1 });
  beforeAll(async () => {
    await makeCurrent(h, build1);
  });

  it('serves an order to completion once its version is current: the order auto-upgrades, a sweep is pinned', async () => {
    const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect((await advance(waiting.svcOrderId!, 'SHIPPED')).status).toBe(200);
    await sweepOnce(h);
    await reachStage(handle, Stage.SHIPPED);
    expect((await advance(waiting.svcOrderId!, 'DELIVERED')).status).toBe(200);
    const sweep = await sweepOnce(h);
    expect(((await handle.result()) as { stage: string }).stage).toBe(Stage.COMPLETED);

    expect(await versioningOf(handle)).toEqual({ behavior: 'AUTO_UPGRADE', version: build1 });
    expect(await versioningOf(h.client.workflow.getHandle(sweep))).toEqual({
      behavior: 'PINNED',
      version: build1,
    });
  });

  it("a build's replay gate replays the runs it would take over and names their builds", async () => {
    const upgrading = await parkOrder(h);
    const pinned = await parkOrder(h, build1);
    await eventually(
      'visibility lists the pinned order as pinned to build-1',
      async () =>
        (
          await h.client.workflow.count(
            `WorkflowId = '${pinned}' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND TemporalWorkerDeploymentVersion = '${versionName(build1)}'`,
          )
        ).count,
      (n) => n === 1,
    );
    const gate = (deployment: WorkerDeploymentVersion) =>
      openWorkflowsToReplay(h.client, { taskQueue: h.queues.orders, limit: 10, deployment });

    // A new build takes over the auto-upgrading runs, never the run pinned to build-1.
    const forBuild2 = (await gate(build2)).map((r) => r.workflowId);
    expect(forBuild2).toContain(upgrading);
    expect(forBuild2).not.toContain(pinned);
    // Build-1 itself (one more worker of it) serves its pinned run too.
    expect((await gate(build1)).map((r) => r.workflowId)).toEqual(
      expect.arrayContaining([upgrading, pinned]),
    );

    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: VERSIONED_WORKFLOWS_PATH,
      logger: quiet,
    });
    const check = await replayOpenWorkflows(h.client, {
      taskQueue: h.queues.orders,
      workflowBundle,
      limit: 10,
      deployment: build2,
    });
    expect(check.failures).toEqual([]);
    // Every run it replayed last ran on build-1: the build this one takes over from.
    expect(check.versions).toEqual({ [versionName(build1)]: check.checked });
    expect(check.checked).toBe(forBuild2.length);
  });
});

describe('an unversioned worker (no WORKER_DEPLOYMENT_NAME)', () => {
  const h = useOrderHarness('unversioned');

  it('runs orders and sweeps as before: no version, no behaviour', async () => {
    const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
    await reachStage(handle, Stage.AWAITING_SHIPMENT);
    const sweep = await sweepOnce(h);
    for (const run of [handle, h.client.workflow.getHandle(sweep)]) {
      expect(await versioningOf(run)).toEqual({ behavior: undefined, version: undefined });
    }
    const gate = await openWorkflowsToReplay(h.client, { taskQueue: h.queues.orders, limit: 10 });
    expect(gate.map((r) => r.version)).toEqual(gate.map(() => 'unversioned'));
  });
});

/** `temporal worker deployment set-current-version`, once the version's workers poll. */
async function makeCurrent(h: OrderHarness, version: WorkerDeploymentVersion): Promise<void> {
  await eventually(
    `${versionName(version)} made current`,
    () =>
      h.client.workflowService
        .setWorkerDeploymentCurrentVersion({
          namespace: inject('temporalNamespace'),
          deploymentName: version.deploymentName,
          buildId: version.buildId,
          identity: 'versioning.test',
        })
        .then(
          () => true,
          // Until the server has seen the version's pollers: "no Worker Deployment found".
          (err: unknown) => {
            if (!String(err).includes('FAILED_PRECONDITION')) throw err;
            return false;
          },
        ),
    (done) => done,
  );
}

/** How the server describes the run's versioning: its behaviour and its version. */
async function versioningOf(
  handle: WorkflowHandle,
): Promise<{ behavior: string | undefined; version: WorkerDeploymentVersion | undefined }> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  const version = info?.deploymentVersion;
  return {
    behavior: decodeVersioningBehavior(info?.behavior),
    version:
      version?.deploymentName && version.buildId
        ? { deploymentName: version.deploymentName, buildId: version.buildId }
        : undefined,
  };
}

/** An order parked at approval (it waits for weeks), pinned to `pinnedTo` if given. */
async function parkOrder(h: OrderHarness, pinnedTo?: WorkerDeploymentVersion): Promise<string> {
  const input: OrderInput = validOrder({
    ...usOrder(),
    fulfillment: { flow: 'B', payment: { policy: 'approval' } },
  });
  const handle = await h.client.workflow.start(ORDER_WORKFLOW, {
    workflowId: orderWorkflowId(input.order.orderNumber),
    taskQueue: h.queues.orders,
    args: [input],
    ...(pinnedTo !== undefined && { versioningOverride: { pinnedTo } }),
  });
  await reachStage(handle, Stage.AWAITING_APPROVAL, (s) => s.waitingFor !== undefined);
  return handle.workflowId;
}
