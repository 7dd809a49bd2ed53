/**
 * End to end through the sandbox itself: the gateway is registered as the test account's webhook
 * callback (setWebhooks, every topic); the sandbox signs and pushes its order and logistics
 * messages; the order workflow moves on those alone (no tracking sweep runs here).
 */
import { beforeAll, expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { callbackUrlFor, enableWebhooks } from '../../src/gateway/registration.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { useOrderHarness, reachStage, startOrder, validOrder } from '../support/orders.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { inbox, useTestGateway } from './support.js';

const h = useOrderHarness('gw-sandbox');
// The signing key as production learns it: from the supplier's token response.
const gateway = useTestGateway(h, { openId: () => h.account.client.tokens.openId() });
beforeAll(async () => {
  // The test sandbox accepts local callbacks (allowLocalWebhooks), as `dropflow dev`'s does.
  await enableWebhooks(h.account.client, callbackUrlFor(gateway.url, { allowLocal: true }));
});

it('a paid order the sandbox ships reaches SHIPPED through the signed webhook', async () => {
  const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.trackNumber).toBeUndefined();

  expect((await advance(waiting.svcOrderId!, 'SHIPPED')).status).toBe(200);
  const shipped = await reachStage(handle, Stage.SHIPPED, (s) => s.trackNumber !== undefined);
  expect(shipped.trackNumber).toMatch(/^SBX\d+/);

  const stats = await accountStats(h.account.openId);
  expect(stats.webhooksDelivered).toBeGreaterThan(0);
  expect(stats.webhooksFailed).toBe(0);
  // No sweep ran: the webhook told the workflow, which confirmed it with its own look-up (a push
  // alone ships nothing: up to four look-ups while the supplier's view may trail).
  const lookUps = takenCalls(stats, 'shopping/order/getOrderDetailBatch');
  expect(lookUps).toBeGreaterThanOrEqual(1);
  expect(lookUps).toBeLessThanOrEqual(4);
  // Every push had its order: nothing waits in the inbox.
  expect((await inbox(h)).held).toEqual([]);
});
