/**
 * The verdict of a chaos run: every order's (and dispute's) state as its workflow tells it,
 * compared with the sandbox's own record of the account. Pure: the run gathers, this judges.
 */
import proto from '@temporalio/proto';

import {
  isStage,
  Stage,
  WAITING_STAGES,
  type OrderStatus,
  type DisputeStatus,
} from 'dropflow/client';
import { isPaid } from '../sandbox/orderBook.js';
import type { SandboxDispute, SandboxOrder, SandboxStats } from '../sandbox/state.js';
import { toCreatedMs, toCreatedSummary, type ToCreated } from '../localStack/toCreated.js';
import { supplierCalls, type SupplierCalls } from './calls.js';
import type { OperatedRun } from './operator.js';
import type { Flow } from './orders.js';
import { parcelFindings, splitStatus } from './parcels.js';

const { EventType, WorkflowTaskFailedCause: Cause } = proto.temporal.api.enums.v1;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Workflow execution statuses (the SDK's `status.name`) that count as failed workflows. */
export const FAILED_EXECUTIONS: ReadonlySet<string> = new Set([
  'FAILED',
  'TIMED_OUT',
  'TERMINATED',
]);
const RUNNING = 'RUNNING';
const DELIVERED: SandboxOrder['status'] = 'DELIVERED';

/** Stages an order is in only before its payment went out. */
const BEFORE_PAYMENT: ReadonlySet<Stage> = new Set([
  Stage.RECEIVED,
  Stage.CREATED,
  Stage.IN_CART,
  Stage.CONFIRMED,
  Stage.AWAITING_PAYMENT,
  Stage.AWAITING_APPROVAL,
  Stage.AWAITING_FUNDS,
  Stage.AWAITING_CONNECTION,
]);
/** Stages an order reaches only once paid. */
const AFTER_PAYMENT: ReadonlySet<Stage> = new Set([
  Stage.PAID,
  Stage.AWAITING_WAYBILL,
  Stage.AWAITING_SHIPMENT,
  Stage.SHIPPED,
  Stage.DELIVERED,
  Stage.COMPLETED,
]);
const SETTLED_DISPUTE: ReadonlySet<DisputeStatus['stage']> = new Set([
  'OPEN',
  'RESOLVED',
  'CANCELLED',
]);

export interface ObservedOrder {
  orderNumber: string;
  flow: Flow;
  /** What its status query answered; undefined when it could not be asked. */
  status: OrderStatus | undefined;
  /** RUNNING, COMPLETED, FAILED, … ; undefined when the workflow was not found. */
  execution: string | undefined;
  /** Its search attributes: what visibility says when the query cannot be answered. */
  visible: { stage: string | undefined; svcOrderId: string | undefined };
  /** When Temporal took its submit (the workflow's start, epoch ms), when known. */
  submittedAt?: number;
}

export interface ObservedDispute {
  workflowId: string;
  orderNumber: string;
  status: DisputeStatus | undefined;
  execution: string | undefined;
}

export interface ObservedExecution {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
  /** The failed workflow tasks its history holds that its code is to blame for (undefined: its
   * history could not be read). */
  taskFailures: readonly TaskFailure[] | undefined;
}

/** One WorkflowTaskFailed event: its cause (the enum's name, without prefix) and first line. */
export interface TaskFailure {
  cause: string;
  message: string;
}

export interface Observation {
  orders: readonly ObservedOrder[];
  disputes: readonly ObservedDispute[];
  /** Every workflow execution of the namespace. */
  executions: readonly ObservedExecution[];
  /** Runs the chaos itself terminated or reset: not failures of dropflow. */
  operated: readonly OperatedRun[];
  /** The sandbox's orders and disputes of the chaos account, and its counters. */
  sandboxOrders: readonly SandboxOrder[];
  sandboxDisputes: readonly SandboxDispute[];
  stats: SandboxStats;
}

export const Counter = {
  failedWorkflows: 'failedWorkflows',
  duplicateCreates: 'duplicateCreates',
  secondPayments: 'secondPayments',
  stuckWithoutReason: 'stuckWithoutReason',
  mismatches: 'mismatches',
  parcelsLost: 'parcelsLost',
  deliveredTooEarly: 'deliveredTooEarly',
} as const;
export type Counter = (typeof Counter)[keyof typeof Counter];

/** One thing that made a counter non-zero: which order or workflow, and why (no personal data). */
export interface Finding {
  counter: Counter;
  subject: string;
  detail: string;
}

export interface Verdict {
  orders: number;
  byStage: Record<string, number>;
  completed: number;
  attention: number;
  failedWorkflows: number;
  duplicateCreates: number;
  secondPayments: number;
  stuckWithoutReason: number;
  mismatches: number;
  /** A parcel code of a split order that no order follows. */
  parcelsLost: number;
  /** An order DELIVERED while one of its parcels was not. */
  deliveredTooEarly: number;
  disputesByStage: Record<string, number>;
  /** Settled orders whose FulfillmentStage search attribute says another stage than `status`. */
  stageMismatches: StageMismatch[];
  /** WorkflowTaskFailed events their code is to blame for, across every workflow of the run. */
  workflowTaskFailures: number;
  /** The workflows that had them, with the last one's cause and message. */
  failingTasks: { workflowId: string; type: string; count: number; last: TaskFailure }[];
  /** Workflows whose history could not be read: their task failures are not counted. */
  unreadHistories: string[];
  findings: Finding[];
  /** The orders that wait for a person, and why (what an operator would read first). */
  waiting: { orderNumber: string; stage: string; reason: string }[];
  /** Submit → CREATED (the supplier has the order): p50 and p99 over the orders that got there. */
  submitToCreated: ToCreated;
  /** The mutating supplier calls, by path and per order. */
  supplierCalls: SupplierCalls;
}

export interface StageMismatch {
  orderNumber: string;
  /** FulfillmentStage, as the order's workflow last upserted it; undefined: never set. */
  searchAttribute: string | undefined;
  /** What its `status` query answered. */
  status: string;
}

/**
 * Causes of a failed workflow task that are not the workflow code's doing: the server refusing a
 * completion because new events arrived, a worker's cache eviction, a failover, a reset (which
 * writes one into the history), or the server closing a run whose task was in flight (an
 * operator's terminate, the current run a reset ends: FORCE_CLOSE_COMMAND).
 */
const NOT_THE_CODE: ReadonlySet<number> = new Set([
  Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
  Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_UPDATE,
  Cause.WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE,
  Cause.WORKFLOW_TASK_FAILED_CAUSE_FAILOVER_CLOSE_COMMAND,
  Cause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
  Cause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
]);
const MESSAGE_CHARS = 160;

/** The failed workflow tasks of a history that its workflow's code is to blame for. */
export function taskFailuresIn(events: readonly HistoryEvent[]): TaskFailure[] {
  const out: TaskFailure[] = [];
  for (const e of events) {
    if (e.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) continue;
    const attributes = e.workflowTaskFailedEventAttributes;
    const cause = attributes?.cause ?? Cause.WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED;
    if (NOT_THE_CODE.has(cause)) continue;
    const firstLine = (attributes?.failure?.message ?? '').split('\n')[0] ?? '';
    out.push({
      cause: causeName(cause),
      message: firstLine.slice(0, MESSAGE_CHARS),
    });
  }
  return out;
}

/** The cause's enum name without its prefix; a cause newer than this SDK's enum by its number. */
function causeName(cause: number): string {
  const names: Partial<Record<number, string>> = Cause;
  return (names[cause] ?? String(cause)).replace('WORKFLOW_TASK_FAILED_CAUSE_', '');
}

/**
 * Settled orders whose search attribute names another stage than their status. An order in
 * flight may disagree on purpose: it writes the attribute only where it starts to wait.
 */
export function stageMismatches(orders: readonly ObservedOrder[]): StageMismatch[] {
  return orders.flatMap((o) =>
    o.status === undefined || !orderSettled(o.status) || o.status.stage === o.visible.stage
      ? []
      : [{ orderNumber: o.orderNumber, searchAttribute: o.visible.stage, status: o.status.stage }],
  );
}

/** Waiting for a person (or an outside event), and saying why. */
export function waitsWithReason(status: OrderStatus): boolean {
  return (
    WAITING_STAGES.includes(status.stage) &&
    (status.waitingFor !== undefined ||
      status.error !== undefined ||
      status.interception !== undefined)
  );
}

/** Where the run may stop waiting for this order. */
export function orderSettled(status: OrderStatus): boolean {
  return (
    status.stage === Stage.COMPLETED || status.stage === Stage.CANCELLED || waitsWithReason(status)
  );
}

export function disputeSettled(status: DisputeStatus): boolean {
  return (
    SETTLED_DISPUTE.has(status.stage) ||
    (status.stage === 'NEEDS_ATTENTION' && status.error !== undefined)
  );
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    out.set(k, [...(out.get(k) ?? []), item]);
  }
  return out;
}

function bump(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

export function judge(o: Observation): Verdict {
  const findings: Finding[] = [];
  const find = (counter: Counter, subject: string, detail: string): void => {
    findings.push({ counter, subject, detail });
  };
  const byStage: Record<string, number> = {};
  const disputesByStage: Record<string, number> = {};
  let completed = 0;
  let attention = 0;
  const waiting: Verdict['waiting'] = [];
  const toCreated: number[] = [];
  // Parcels split from an order share its number: the order is the one it was split from.
  const atSupplier = groupBy(
    o.sandboxOrders.filter((s) => s.splitFrom === undefined),
    (s) => s.orderNumber,
  );

  for (const order of o.orders) {
    const { orderNumber, status } = order;
    const theirs = atSupplier.get(orderNumber) ?? [];
    // Unanswered queries: visibility's stage, and the execution's status, in brackets.
    bump(
      byStage,
      status?.stage ??
        `${order.visible.stage ?? '?'} (${order.execution ?? 'not found'}, no answer)`,
    );

    if (theirs.length > 1) {
      find(Counter.duplicateCreates, orderNumber, `${theirs.length} supplier orders`);
    }
    const paid = theirs.filter(isPaid);
    if (paid.length > 1) {
      find(Counter.secondPayments, orderNumber, `${paid.length} supplier orders paid`);
    }

    if (order.execution === RUNNING || order.execution === undefined) {
      if (status === undefined) {
        const why = `no answer to its status query (${order.execution ?? 'no workflow'})`;
        find(Counter.stuckWithoutReason, orderNumber, why);
      } else if (!orderSettled(status)) {
        find(Counter.stuckWithoutReason, orderNumber, `open at ${status.stage} without a reason`);
      }
    }
    const created =
      status === undefined || order.submittedAt === undefined
        ? undefined
        : toCreatedMs(status, order.submittedAt);
    if (created !== undefined) toCreated.push(created);
    // A closed workflow whose status cannot be read is judged by its search attributes.
    const known = status?.stage ?? order.visible.stage;
    if (known === undefined || !isStage(known)) continue;
    const stage = known;
    const svcOrderId = status?.svcOrderId ?? order.visible.svcOrderId;
    if (stage === Stage.COMPLETED) completed += 1;
    if (WAITING_STAGES.includes(stage)) {
      attention += 1;
      waiting.push({ orderNumber, stage, reason: reasonOf(status) });
    }

    const mine =
      svcOrderId === undefined ? undefined : theirs.find((s) => s.svcOrderId === svcOrderId);
    const mismatch = (detail: string): void => {
      find(Counter.mismatches, orderNumber, `${stage}: ${detail}`);
    };
    if (svcOrderId !== undefined && mine === undefined) {
      mismatch(`the supplier has no order ${svcOrderId} for it`);
    }
    for (const f of parcelFindings(orderNumber, status, o.sandboxOrders)) {
      find(f.counter, f.subject, f.detail);
    }
    if (stage === Stage.COMPLETED) {
      const shown = mine?.splitInto ? splitStatus(mine, o.sandboxOrders) : mine?.status;
      if (mine === undefined) mismatch('completed without a supplier order');
      else if (shown !== DELIVERED || !isPaid(mine)) {
        mismatch(`the supplier's order is ${shown}${isPaid(mine) ? '' : ', not paid'}`);
      }
    }
    if (stage === Stage.CANCELLED && paid.length > 0)
      mismatch('cancelled, yet paid at the supplier');
    if (BEFORE_PAYMENT.has(stage) && paid.length > 0) mismatch('paid at the supplier');
    if (AFTER_PAYMENT.has(stage) && paid.length === 0) mismatch('not paid at the supplier');
  }

  const disputesOf = groupBy(o.sandboxDisputes, (d) => d.orderId);
  for (const [orderId, list] of disputesOf) {
    if (list.length > 1) {
      find(Counter.duplicateCreates, list[0]?.orderNumber ?? orderId, `${list.length} disputes`);
    }
  }
  const knownDisputes = new Set(o.sandboxDisputes.map((d) => d.id));
  for (const d of o.disputes) {
    const stage = d.status?.stage;
    bump(disputesByStage, stage ?? `(${d.execution ?? 'not found'})`);
    if (stage === 'NEEDS_ATTENTION') attention += 1;
    if (d.execution === RUNNING && (d.status === undefined || !disputeSettled(d.status))) {
      find(
        Counter.stuckWithoutReason,
        d.workflowId,
        `dispute open at ${stage ?? '?'} without a reason`,
      );
    }
    if (d.status?.disputeId !== undefined && !knownDisputes.has(d.status.disputeId)) {
      find(Counter.mismatches, d.workflowId, `the supplier has no dispute ${d.status.disputeId}`);
    }
  }

  const operated = new Set(o.operated.map((r) => r.runId));
  for (const e of o.executions) {
    if (FAILED_EXECUTIONS.has(e.status) && !operated.has(e.runId)) {
      find(Counter.failedWorkflows, e.workflowId, `${e.type} ${e.status}`);
    }
  }
  const failingTasks = o.executions.flatMap((e) => {
    const last = e.taskFailures?.at(-1);
    return e.taskFailures === undefined || last === undefined
      ? []
      : [{ workflowId: e.workflowId, type: e.type, count: e.taskFailures.length, last }];
  });

  const count = (counter: Counter): number => findings.filter((f) => f.counter === counter).length;
  const extraOrders = [...atSupplier.values()].reduce((n, l) => n + Math.max(0, l.length - 1), 0);
  const extraDisputes = [...disputesOf.values()].reduce((n, l) => n + Math.max(0, l.length - 1), 0);
  const extraPaid = [...atSupplier.values()].reduce(
    (n, l) => n + Math.max(0, l.filter(isPaid).length - 1),
    0,
  );
  return {
    orders: o.orders.length,
    byStage,
    completed,
    attention,
    waiting,
    failedWorkflows: count(Counter.failedWorkflows),
    duplicateCreates: extraOrders + extraDisputes,
    secondPayments: o.stats.repeatedPaymentsRefused + extraPaid,
    stuckWithoutReason: count(Counter.stuckWithoutReason),
    mismatches: count(Counter.mismatches),
    parcelsLost: count(Counter.parcelsLost),
    deliveredTooEarly: count(Counter.deliveredTooEarly),
    disputesByStage,
    stageMismatches: stageMismatches(o.orders),
    workflowTaskFailures: failingTasks.reduce((n, t) => n + t.count, 0),
    failingTasks,
    unreadHistories: o.executions
      .filter((e) => e.taskFailures === undefined)
      .map((e) => e.workflowId),
    findings,
    submitToCreated: toCreatedSummary(toCreated),
    supplierCalls: supplierCalls(o.stats, o.orders.length),
  };
}

/** An order's stop in one line: the step, the supplier's code and message, what moves it on. */
function reasonOf(status: OrderStatus | undefined): string {
  if (status === undefined) return 'no answer to its status query';
  const e = status.error;
  const stop = e
    ? `${e.message}${e.code !== undefined ? ` (code ${e.code})` : ''}`
    : status.interception
      ? `intercepted at ${status.interception.step}`
      : '';
  return [stop, status.waitingFor].filter((x) => x !== undefined && x !== '').join(' — ');
}
