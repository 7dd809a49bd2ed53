/** The chaos verdict: how the workflows' word and the sandbox's record are weighed. */
import { describe, expect, it } from 'vitest';

import { Stage, type OrderStatus } from '../../src/order/contract.js';
import proto from '@temporalio/proto';

import {
  judge,
  taskFailuresIn,
  type Observation,
  type ObservedExecution,
  type ObservedOrder,
} from '../../tools/src/chaos/measure.js';
import { emptyStats, type SandboxOrder } from '../../tools/src/sandbox/state.js';

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

function execution(
  workflowId: string,
  type: string,
  status: string,
  over: Partial<ObservedExecution> = {},
): ObservedExecution {
  return { workflowId, runId: `${workflowId}-run`, type, status, taskFailures: [], ...over };
}

function observation(over: Partial<Observation>): Observation {
  return {
    orders: [],
    disputes: [],
    executions: [],
    operated: [],
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
          execution('order:O1', 'fulfillOrder', 'COMPLETED'),
          execution('order:O9', 'fulfillOrder', 'FAILED'),
          execution('sweep', 'trackingSweep', 'TIMED_OUT'),
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

  it('lists settled orders whose FulfillmentStage disagrees with their status query', () => {
    const v = judge(
      observation({
        orders: [
          order('O1', { stage: Stage.CANCELLED }, 'COMPLETED'),
          {
            ...order('O2', { stage: Stage.COMPLETED, svcOrderId: 'S2' }, 'COMPLETED'),
            visible: { stage: Stage.PAID, svcOrderId: 'S2' },
          },
          {
            ...order('O3', { stage: Stage.NEEDS_ATTENTION, error: { step: 'pay', message: 'x' } }),
            visible: { stage: undefined, svcOrderId: undefined },
          },
          // In flight: it writes the attribute only where it starts to wait.
          {
            ...order('O5', { stage: Stage.CREATED, svcOrderId: 'S5' }),
            visible: { stage: Stage.RECEIVED, svcOrderId: undefined },
          },
          // Not answered: nothing to compare.
          {
            ...order('O4', {}),
            status: undefined,
            visible: { stage: Stage.PAID, svcOrderId: undefined },
          },
        ],
        sandboxOrders: [supplierOrder('O2', 'S2')],
      }),
    );
    expect(v.stageMismatches).toEqual([
      { orderNumber: 'O2', searchAttribute: Stage.PAID, status: Stage.COMPLETED },
      { orderNumber: 'O3', searchAttribute: undefined, status: Stage.NEEDS_ATTENTION },
    ]);
  });

  it('counts the failed workflow tasks of every workflow, singletons included', () => {
    const v = judge(
      observation({
        executions: [
          execution('order:O1', 'fulfillOrder', 'RUNNING', {
            taskFailures: [{ cause: 'NON_DETERMINISTIC_ERROR', message: 'nondeterminism' }],
          }),
          execution('checkout:default', 'accountCheckout', 'RUNNING', {
            taskFailures: [
              { cause: 'WORKFLOW_WORKER_UNHANDLED_FAILURE', message: 'first' },
              { cause: 'WORKFLOW_WORKER_UNHANDLED_FAILURE', message: 'second' },
            ],
          }),
          execution('supplier-session', 'supplierSession', 'RUNNING', { taskFailures: undefined }),
        ],
      }),
    );
    expect(v.workflowTaskFailures).toBe(3);
    expect(v.failingTasks).toEqual([
      {
        workflowId: 'order:O1',
        type: 'fulfillOrder',
        count: 1,
        last: { cause: 'NON_DETERMINISTIC_ERROR', message: 'nondeterminism' },
      },
      {
        workflowId: 'checkout:default',
        type: 'accountCheckout',
        count: 2,
        last: { cause: 'WORKFLOW_WORKER_UNHANDLED_FAILURE', message: 'second' },
      },
    ]);
    expect(v.unreadHistories).toEqual(['supplier-session']);
  });

  it('does not count the runs the chaos itself terminated or reset as failed workflows', () => {
    const v = judge(
      observation({
        executions: [
          execution('checkout:default', 'accountCheckout', 'TERMINATED', { runId: 'r1' }),
          execution('checkout:default', 'accountCheckout', 'TERMINATED', { runId: 'r2' }),
          execution('supplier-session', 'supplierSession', 'TERMINATED', { runId: 'r3' }),
        ],
        operated: [
          { workflowId: 'checkout:default', runId: 'r1', action: 'terminate' },
          { workflowId: 'supplier-session', runId: 'r3', action: 'reset' },
        ],
      }),
    );
    expect(v.failedWorkflows).toBe(1);
    expect(v.findings).toEqual([
      {
        counter: 'failedWorkflows',
        subject: 'checkout:default',
        detail: 'accountCheckout TERMINATED',
      },
    ]);
  });
});

describe('taskFailuresIn', () => {
  const { EventType, WorkflowTaskFailedCause: Cause } = proto.temporal.api.enums.v1;
  const failed = (cause: number, message: string) => ({
    eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
    workflowTaskFailedEventAttributes: { cause, failure: { message } },
  });

  it("keeps the failures the workflow's code caused, with their cause and first line", () => {
    expect(
      taskFailuresIn([
        { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED },
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE, 'boom\n  at x'),
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, 'nondeterminism'),
      ]),
    ).toEqual([
      { cause: 'WORKFLOW_WORKER_UNHANDLED_FAILURE', message: 'boom' },
      { cause: 'NON_DETERMINISTIC_ERROR', message: 'nondeterminism' },
    ]);
  });

  it('leaves out what the server, a cache eviction, a reset or a terminate wrote', () => {
    expect(
      taskFailuresIn([
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND, 'new events'),
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_UPDATE, 'an update came'),
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE, 'evicted'),
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW, 'reset'),
        // The server fails the task in flight of a run it terminates (an operator's terminate).
        failed(Cause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND, ''),
      ]),
    ).toEqual([]);
  });
});
