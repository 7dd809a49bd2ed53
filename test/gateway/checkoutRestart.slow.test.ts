/**
 * A checkout coordinator an operator terminated comes back with the deployment's settings when a
 * top-up brings it back (the gateway's signal-with-start), not with the product's defaults: its
 * batching, and its per-run budgets, which keep it below the cluster's limits.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { StartedGateway } from '../../src/gateway/server.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { checkoutStatusQuery, checkoutWorkflowId } from '../../src/checkout/contract.js';
import {
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../../src/terms/checkoutSettings.js';
import { eventually } from '../support/eventually.js';
import { orderHarness, type OrderHarness } from '../support/orders.js';
import { makeupMessage, pushSigned, startTestGateway } from './support.js';

/** Unlike the defaults in every field that has one. */
const CONFIGURED: CheckoutSettings = {
  batching: true,
  quietMs: 1_500,
  maxWaitMs: 20_000,
  maxBatch: 7,
  fundsCheckMs: 12 * 60_000,
  signalsPerRun: 321,
  historyPerRun: 654,
  outcomesInFlight: 9,
};

let h: OrderHarness;
let gateway: StartedGateway;

beforeAll(async () => {
  h = await orderHarness('gw-coord-restart', 1_000, { checkout: CONFIGURED });
  gateway = await startTestGateway(h, { checkout: CONFIGURED });
});
afterAll(async () => {
  await gateway.close();
  await h.close();
});

it('a top-up after the coordinator was terminated starts it again with the configured settings', async () => {
  expect(CONFIGURED).not.toMatchObject(DEFAULT_CHECKOUT_SETTINGS);
  const workflowId = checkoutWorkflowId(queuePrefix(h.queues));
  const coordinator = h.client.workflow.getHandle(workflowId);
  expect((await coordinator.query(checkoutStatusQuery)).settings).toEqual(CONFIGURED);
  const terminated = (await coordinator.describe()).runId;
  await coordinator.terminate('an operator');

  const answer = await pushSigned(gateway, h.account.openId, makeupMessage('PAID'));
  expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });

  const latest = h.client.workflow.getHandle(workflowId);
  const restarted = await eventually(
    'a new coordinator',
    () => latest.describe(),
    (d) => d.runId !== terminated && d.status.name === 'RUNNING',
  );
  expect(restarted.runId).not.toBe(terminated);
  expect((await latest.query(checkoutStatusQuery)).settings).toEqual(CONFIGURED);
});
