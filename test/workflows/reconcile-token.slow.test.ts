/**
 * An account without an access token for a while (its token expired and the supplier's token
 * endpoint fails): nothing about the orders is wrong, so they wait it out by themselves instead
 * of asking a person, and nothing is sent twice.
 */
import { expect, it } from 'vitest';
import { Stage, statusQuery } from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { toApplicationFailure } from '../../src/supplier/supplierCall.js';
import { SupplierTransportError } from '../../src/supplier/errors.js';
import { accountStats, injectFault, takenCalls } from '../support/sandbox.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { expireTokens } from '../sandbox/controls.js';
import { usOrder } from '../supplier/orderHelpers.js';

const h = useOrderHarness('no-token');

it('a call that could not get a token is marked as never sent', () => {
  const f = toApplicationFailure(
    'createOrderV3',
    new SupplierTransportError('getAccessToken', 'request failed: reset', false),
  ) as { type: string; details: { noToken?: boolean; endpoint: string }[] };
  expect(f.type).toBe('SupplierRetryable');
  expect(f.details[0]).toMatchObject({ endpoint: 'createOrderV3', noToken: true });
});

it('orders wait out an account without a token and go on once the supplier gives one', async () => {
  const { openId } = h.account;
  // The client's token must be renewed: expired at the supplier, then the new one fails a while.
  expect((await expireTokens(openId)).status).toBe(200);
  await injectFault({
    path: 'authentication/refreshAccessToken',
    kind: 'http5xx',
    times: 3,
    openId,
  });
  await injectFault({ path: 'authentication/getAccessToken', kind: 'http5xx', times: 3, openId });

  const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
  const held = await reachStage(handle, Stage.RECEIVED, (s) => s.waitingFor !== undefined);
  expect(held.waitingFor).toMatch(/^no access token for the account/);
  const waiting = await eventually(
    `${handle.workflowId} paid`,
    () => handle.query(statusQuery),
    (s) => s.stage === Stage.AWAITING_SHIPMENT,
    120_000,
  );
  expect(waiting.timeline.map((t) => t.stage)).not.toContain(Stage.NEEDS_ATTENTION);
  const stats = await accountStats(openId);
  expect(stats.ordersCreated).toBe(1);
  expect(stats.payments).toBe(1);
  expect(takenCalls(stats, 'shopping/order/createOrderV3')).toBe(1);
});
