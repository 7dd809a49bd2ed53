/**
 * An order whose worker cannot pass its ready orders on (every `checkoutReadyMany` flush refused)
 * signals its coordinator itself once announceReady's attempts are spent
 * (order/steps/batchedCheckout.ts): it still reaches its batch and is paid once.
 */
import { NativeConnection } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Stage } from '../../src/order/contract.js';
import { checkoutReadyManySignal } from '../../src/checkout/contract.js';
import { installRuntimeLogger } from '../../src/temporal/runtimeLogger.js';
import { NEVER } from '../support/checkoutSettings.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';

const ORDERS = 3;

/**
 * The workers' connection: it refuses every flush of their ready buffer (the signal-with-start of
 * `checkoutReadyMany`) as an unreachable server would, and passes their other calls on.
 */
let connection: NativeConnection;
let refused = 0;
beforeAll(async () => {
  installRuntimeLogger();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const service = connection.workflowService;
  const send = service.signalWithStartWorkflowExecution.bind(service);
  service.signalWithStartWorkflowExecution = ((req) => {
    if (req.signalName !== checkoutReadyManySignal.name) return send(req);
    refused += 1;
    return Promise.reject(new Error('the test refuses checkoutReadyMany'));
  }) as typeof service.signalWithStartWorkflowExecution;
});
// Registered before the harness: after hooks run in reverse, so the workers stop first.
afterAll(() => connection.close());

const h = useOrderHarness('ready-fallback', 10_000, () => ({
  ratePerSecond: 20,
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: ORDERS },
  checkoutOrderBoundMs: 3_000,
  workerConnection: connection,
}));

const pays = async () =>
  takenCalls(await accountStats(h.account.openId), 'shopping/pay/payBalanceV2');

const eventsOf = async (w: WorkflowHandle) => (await w.fetchHistory()).events ?? [];

describe('ready orders whose worker cannot pass them on', () => {
  it('each signals its coordinator itself once announceReady gives up, reaches its batch, and the batch is paid once', async () => {
    const paysBefore = await pays();
    const orders = await Promise.all(
      Array.from({ length: ORDERS }, (_, i) =>
        startOrder(
          h,
          validOrder({
            ...usOrder({ orderNumber: orderNumber(`fallback-${i}`) }),
            fulfillment: { flow: 'B', supplierLagSeconds: 2 },
          }),
        ),
      ),
    );
    const paid = await Promise.all(orders.map((o) => reachStage(o, Stage.AWAITING_SHIPMENT)));
    expect(new Set(paid.map((p) => p.shipmentOrderId)).size).toBe(1);
    expect(await pays()).toBe(paysBefore + 1);
    // Each order's three attempts went in three refused flushes (shared by orders ready together).
    expect(refused).toBeGreaterThanOrEqual(3);
    for (const o of orders) {
      const events = await eventsOf(o);
      const own = events.filter(
        (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName,
      );
      expect(
        own.map((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes!.signalName),
      ).toEqual(['checkoutReady']);
      const outcomes = events.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'checkoutOutcome',
      );
      expect(outcomes).toHaveLength(1);
      // However the local activity's last failure reached the order, no workflow task failed.
      expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    }
  });
});
