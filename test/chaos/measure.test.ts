/** The chaos verdict: how the workflows' word and the sandbox's record are weighed. */
import { describe, expect, it } from 'vitest';

import { Stage, type OrderStatus } from '../../src/client/definitions.js';
import { judge, type Observation, type ObservedOrder } from '../../src/chaos/measure.js';
import { emptyStats, type SandboxOrder } from '../../src/sandbox/state.js';

function supplierOrder(orderNumber: string, svcOrderId: string, over: Partial<SandboxOrder> = {}) {
  const order: SandboxOrder = {
    svcOrderId,
    svcOrderCode: `SC${svcOrderId}`,
    openId: 'chaos',
    orderNumber,
    request: {},
    status: 'DELIVERED',
    lines: [],
    logisticName: 'SvcPacket Ordinary',
    shopLogisticsType: 2,
    fromCountryCode: 'CN',
    isSandbox: false,
    productAmount: 10,
    postageAmount: 2,
    orderAmount: 12,
    interceptReasons: [],
    logisticsMiss: false,
    proofOfDelivery: [],
    createdAt: 0,
    paidAt: 1,
    ...over,
  };
  return order;
}

function order(orderNumber: string, status: Partial<OrderStatus>, execution = 'RUNNING') {
  const observed: ObservedOrder = {
    orderNumber,
    flow: 'B',
    status: { orderNumber, flow: 'B', stage: Stage.RECEIVED, timeline: [], ...status },
    execution,
    visible: { stage: status.stage, svcOrderId: status.svcOrderId },
  };
  return observed;
}

function observation(over: Partial<Observation>): Observation {
  return {
    orders: [],
    disputes: [],
    executions: [],
    sandboxOrders: [],
    sandboxDisputes: [],
    stats: emptyStats(),
    ...over,
  };
}

describe('judge', () => {
  it('passes completed, cancelled and waiting-with-a-reason orders that agree with the supplier', () => {
    const v = judge(
      observation({
        orders: [
          order('O1', { stage: Stage.COMPLETED, svcOrderId: 'S1' }, 'COMPLETED'),
          order('O2', { stage: Stage.CANCELLED }, 'COMPLETED'),
          order('O3', { stage: Stage.NEEDS_ATTENTION, error: { step: 'pay', message: 'x' } }),
        ],
        sandboxOrders: [supplierOrder('O1', 'S1')],
      }),
    );
    expect(v).toMatchObject({
      orders: 3,
      completed: 1,
      attention: 1,
      failedWorkflows: 0,
      duplicateCreates: 0,
      secondPayments: 0,
      stuckWithoutReason: 0,
      mismatches: 0,
    });
  });

  it('counts what the supplier contradicts, duplicates, second payments, stuck and failed', () => {
    const v = judge(
      observation({
        orders: [
          // Completed, but the supplier never delivered it.
          order('O1', { stage: Stage.COMPLETED, svcOrderId: 'S1' }, 'COMPLETED'),
          // Cancelled, but paid; and created twice, both paid.
          order('O2', { stage: Stage.CANCELLED, svcOrderId: 'S2' }, 'COMPLETED'),
          // Open, neither final nor waiting with a reason.
          order('O3', { stage: Stage.PAID, svcOrderId: 'S4' }),
          // Waiting, but not saying for what.
          order('O4', { stage: Stage.NEEDS_ATTENTION }),
        ],
        sandboxOrders: [
          supplierOrder('O1', 'S1', { status: 'SHIPPED' }),
          supplierOrder('O2', 'S2', { status: 'UNSHIPPED' }),
          supplierOrder('O2', 'S3', { status: 'UNSHIPPED' }),
          supplierOrder('O3', 'S4', { status: 'UNSHIPPED' }),
        ],
        stats: { ...emptyStats(), repeatedPaymentsRefused: 1 },
        executions: [
          { workflowId: 'order:O1', type: 'fulfillOrder', status: 'COMPLETED' },
          { workflowId: 'order:O9', type: 'fulfillOrder', status: 'FAILED' },
          { workflowId: 'sweep', type: 'trackingSweep', status: 'TIMED_OUT' },
        ],
      }),
    );
    expect(v).toMatchObject({
      completed: 1,
      attention: 1,
      failedWorkflows: 2,
      duplicateCreates: 1,
      secondPayments: 2,
      stuckWithoutReason: 2,
      mismatches: 2,
    });
    expect(v.findings.filter((f) => f.counter === 'mismatches').map((f) => f.subject)).toEqual([
      'O1',
      'O2',
    ]);
  });

  it('judges a closed order whose status cannot be read by its search attributes', () => {
    const unread: ObservedOrder = {
      orderNumber: 'O1',
      flow: 'A',
      status: undefined,
      execution: 'COMPLETED',
      visible: { stage: Stage.COMPLETED, svcOrderId: 'S1' },
    };
    const v = judge(
      observation({
        orders: [unread],
        sandboxOrders: [supplierOrder('O1', 'S1', { status: 'UNSHIPPED' })],
      }),
    );
    expect(v).toMatchObject({ completed: 1, stuckWithoutReason: 0, mismatches: 1 });
  });

  it('reports submit → CREATED (p50, p99) over the orders the supplier has', () => {
    const t0 = Date.parse('2026-11-25T10:00:00.000Z');
    const at = (s: number) => new Date(t0 + s * 1_000).toISOString();
    const submitted = (o: ObservedOrder, seconds: number): ObservedOrder => ({
      ...o,
      submittedAt: t0,
      status: {
        ...o.status!,
        timeline: [
          { stage: Stage.RECEIVED, at: at(0) },
          { stage: Stage.CREATED, at: at(seconds) },
        ],
      },
    });
    const waiting = order('O3', {
      stage: Stage.NEEDS_ATTENTION,
      error: { step: 's', message: 'x' },
    });
    const v = judge(
      observation({
        orders: [
          submitted(order('O1', { stage: Stage.PAID, svcOrderId: 'S1' }), 4),
          submitted(order('O2', { stage: Stage.PAID, svcOrderId: 'S2' }), 1_260),
          { ...waiting, submittedAt: t0 },
        ],
        sandboxOrders: [supplierOrder('O1', 'S1'), supplierOrder('O2', 'S2')],
      }),
    );
    expect(v.submitToCreated).toEqual({ orders: 2, p50Ms: 4_000, p99Ms: 1_260_000 });
  });
});
