/**
 * recordedStoreEvents reads an order's store events back from the encrypted histories of its order
 * workflow and its disputes: each event once, in emission order, nothing from other activities or
 * from another order whose number starts the same.
 */
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { orderWorkflowId } from '../../src/order/contract.js';
import { disputeWorkflowId } from '../../src/dispute/contract.js';
import { disputesQuery, recordedStoreEvents } from '../../src/cli/storeEventHistory.js';
import { eventually } from '../support/eventually.js';
import { emitterHarness, storeEvent, type EmitterHarness } from './emitterHarness.js';

let h: EmitterHarness;
beforeAll(async () => {
  h = await emitterHarness('store-history');
});
afterAll(() => h.close());

it("reads the order's events, then each dispute's, once each, through the codec", async () => {
  const orderNumber = `HIST-${Date.now().toString(36)}`;
  const [created, paid, firstDispute, secondDispute] = [
    storeEvent(orderNumber),
    storeEvent(orderNumber),
    storeEvent(orderNumber, 'dispute.updated'),
    storeEvent(orderNumber, 'dispute.updated'),
  ] as const;
  await h.emit('fulfillOrder', orderWorkflowId(orderNumber), [
    { event: created, attempts: 3 },
    { event: paid, attempts: 1 },
  ]);
  await h.emit('disputeOrder', disputeWorkflowId(orderNumber, 'df-a'), [
    { event: firstDispute, attempts: 2 },
  ]);
  await h.emit('disputeOrder', disputeWorkflowId(orderNumber, 'df-b'), [
    { event: secondDispute, attempts: 1 },
  ]);
  // An order whose number extends this one: its disputes are not this order's.
  const other = storeEvent(`${orderNumber}X`, 'dispute.updated');
  await h.emit('disputeOrder', disputeWorkflowId(`${orderNumber}X`, 'df-a'), [
    { event: other, attempts: 1 },
  ]);

  // The histories hold the events encrypted: reading them needs the codec.
  const raw = await h.plainClient.workflow.getHandle(orderWorkflowId(orderNumber)).fetchHistory();
  const bytes = Buffer.from(proto.temporal.api.history.v1.History.encode(raw).finish());
  expect(bytes.includes(Buffer.from(created.id))).toBe(false);
  await expect(recordedStoreEvents(h.plainClient, orderNumber)).rejects.toThrow();

  const events = await eventually(
    'both disputes in visibility',
    () => recordedStoreEvents(h.client, orderNumber),
    (e) => e.length >= 4,
  );
  expect(events).toEqual([created, paid, firstDispute, secondDispute]);
});

it('says so when there is no such order', async () => {
  await expect(recordedStoreEvents(h.client, 'NO-SUCH-ORDER-4711')).rejects.toThrow(
    'no order NO-SUCH-ORDER-4711',
  );
});

it('quotes the order number in the disputes query', () => {
  expect(disputesQuery("O'Brien\\1")).toBe(
    "WorkflowType = 'disputeOrder' AND WorkflowId STARTS_WITH 'dispute:O\\'Brien\\\\1:' AND (SupplierAccount IS NULL OR SupplierAccount = 'default')",
  );
  expect(disputesQuery('A-1', 'shop-a')).toBe(
    "WorkflowType = 'disputeOrder' AND WorkflowId STARTS_WITH 'dispute:shop-a:A-1:' AND SupplierAccount = 'shop-a'",
  );
});
