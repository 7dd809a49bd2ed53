/**
 * A top-up (makeup PAID) is one signal to the account's checkout coordinator (signal-with-start),
 * which reads the balance at once and takes on every order waiting for funds that it covers. The
 * orders themselves are not signalled: on a sale day that would be thousands of signals.
 */
import { expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { checkoutWorkflowId } from '../../src/checkout/contract.js';
import type { WorkflowHandle } from '@temporalio/client';
import { setBalance as setAccountBalance } from '../support/sandbox.js';
import {
  useOrderHarness,
  reachStage,
  startOrder,
  validOrder,
  visibleIn,
} from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { makeupMessage, pushSigned, useTestGateway } from './support.js';

// No money: payments meet 1604000.
const h = useOrderHarness('gw-makeup', 0);
const gateway = useTestGateway(h);

const setBalance = (amount: number) => setAccountBalance(h.account.openId, amount);

const makeup = makeupMessage;

it("with nobody waiting for funds, a top-up still reaches the account's checkout", async () => {
  const message = makeup('PAID');
  const answer = await pushSigned(gateway, h.account.openId, message);
  expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
});

it('a top-up takes every order waiting in AWAITING_FUNDS onward', async () => {
  const inputs = [0, 1].map(() => validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
  const handles = await Promise.all(inputs.map((input) => startOrder(h, input)));
  for (const [i, handle] of handles.entries()) {
    await reachStage(handle, Stage.AWAITING_FUNDS);
    await visibleIn(h, inputs[i]!.order.orderNumber, Stage.AWAITING_FUNDS);
  }

  await setBalance(1_000);
  const coordinator = h.client.workflow.getHandle(checkoutWorkflowId(queuePrefix(h.queues)));
  const fundsSignals = async () =>
    (await signalNames(coordinator)).filter((name) => name === 'checkoutFunds').length;
  const before = await fundsSignals();
  const answer = await pushSigned(gateway, h.account.openId, makeup('PAID'));
  expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
  // The two were confirmed together and refused together: the top-up pays their shipment once.
  const paid = await Promise.all(handles.map((h) => reachStage(h, Stage.AWAITING_SHIPMENT)));
  expect(paid[0]!.shipmentOrderId).toBe(paid[1]!.shipmentOrderId);
  // One signal for the top-up, to the coordinator; none to the orders, none from them to it.
  for (const handle of handles) expect(await signalNames(handle)).not.toContain('supplierEvent');
  expect(await fundsSignals()).toBe(before + 1);
});

async function signalNames(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const name = e.workflowExecutionSignaledEventAttributes?.signalName;
    return name == null ? [] : [name];
  });
}
