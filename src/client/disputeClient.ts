/**
 * Opening and following disputes (docs/architecture.md §11): one `disputeOrder` workflow per
 * dispute, id `dispute:<orderNumber>:<businessDisputeId>` (`dispute:<account>:<orderNumber>:<id>` in
 * another account than the default: the account of the OrderClient, see `forAccount`). The businessDisputeId is derived from
 * the request itself, so asking twice for the same dispute finds the first instead of opening a
 * second.
 */
import { createHash } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
} from '@temporalio/client';

import type { SupplierClient } from '../supplier/client.js';
import {
  cancelUpdate,
  ParcelStage,
  type ActionResult,
  type CancelInput,
  type OrderStatus,
} from '../order/contract.js';
import {
  DISPUTE_WORKFLOW,
  disputeStatusQuery,
  disputeWorkflowId,
  type DisputeInput,
  type DisputeStatus,
} from '../dispute/contract.js';
import { canonicalJson, OrderActionRejectedError, type OrderClient } from './orderClient.js';
import { OrderNumber } from '../temporal/searchAttributes.js';
import { accountStartOptions } from '../accounts/accountStart.js';

export interface DisputeRequest {
  /** A split order: the parcel (its supplier order code) whose lines are disputed. */
  parcel?: string;
  lines?: { lineItemId: string; quantity: number }[];
  expect?: 'refund' | 'reissue';
  refundTo?: 'balance' | 'platform';
  reasonId?: number;
  message: string;
  imageUrls?: string[];
  checkEverySeconds?: number;
}

export interface OpenedDispute {
  outcome: 'started' | 'existing';
  workflowId: string;
  businessDisputeId: string;
}

/** The same request for the same order always gives the same id (≤ 100 characters). */
export function businessDisputeIdFor(orderNumber: string, r: DisputeRequest): string {
  const lines = [...(r.lines ?? [])].sort((a, b) => a.lineItemId.localeCompare(b.lineItemId));
  const basis = canonicalJson({
    orderNumber,
    // Only where named: ids of requests without a parcel stay as they were.
    ...(r.parcel !== undefined && { parcel: r.parcel }),
    lines,
    expect: r.expect ?? 'refund',
    refundTo: r.refundTo ?? 'balance',
    reasonId: r.reasonId ?? null,
    message: r.message,
  });
  return `df-${createHash('sha256').update(basis).digest('hex').slice(0, 32)}`;
}

export async function openDispute(
  orders: OrderClient,
  orderNumber: string,
  request: DisputeRequest,
): Promise<OpenedDispute> {
  const message = request.message.trim();
  if (message === '' || message.length > 500)
    throw new Error('message: must be 1 to 500 characters');
  const svcOrderId = disputedOrder(await orders.status(orderNumber), request.parcel);
  const businessDisputeId = businessDisputeIdFor(orderNumber, request);
  const workflowId = disputeWorkflowId(orderNumber, businessDisputeId, orders.account);
  const input: DisputeInput = {
    orderNumber,
    svcOrderId,
    ...(request.parcel !== undefined && { parcel: request.parcel }),
    businessDisputeId,
    lines: request.lines ?? [],
    expect: request.expect ?? 'refund',
    refundTo: request.refundTo ?? 'balance',
    ...(request.reasonId !== undefined && { reasonId: request.reasonId }),
    message,
    imageUrls: request.imageUrls ?? [],
    checkEverySeconds: request.checkEverySeconds ?? 3_600,
  };
  const account = accountStartOptions({
    id: orders.account,
    tier: orders.options.accounts?.get(orders.account)?.tier,
  });
  try {
    await orders.client.workflow.start(DISPUTE_WORKFLOW, {
      workflowId,
      taskQueue: orders.queues.orders,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: account.memo,
      priority: account.priority,
      typedSearchAttributes: [
        ...account.typedSearchAttributes,
        { key: OrderNumber, value: orderNumber },
      ],
    });
    return { outcome: 'started', workflowId, businessDisputeId };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { outcome: 'existing', workflowId, businessDisputeId };
  }
}

/**
 * The supplier order a dispute concerns: the order's own, or, for an order the supplier split, the
 * parcel named (the order it was split from is no longer the supplier's to dispute).
 */
export function disputedOrder(
  order: Pick<OrderStatus, 'orderNumber' | 'svcOrderId' | 'parcels'>,
  parcel: string | undefined,
): string {
  if (order.svcOrderId === undefined) {
    throw new Error(
      `order ${order.orderNumber} was never created at the supplier: nothing to dispute`,
    );
  }
  const parcels = (order.parcels ?? []).filter((p) => p.stage !== ParcelStage.SPLIT);
  const codes = parcels.map((p) => p.code).join(', ');
  if (parcels.length === 0) {
    if (parcel === undefined || parcel === order.svcOrderId) return order.svcOrderId;
    throw new Error(
      `parcel: order ${order.orderNumber} was not split; its one parcel is ${order.svcOrderId}`,
    );
  }
  if (parcel === undefined) {
    throw new Error(
      `parcel: order ${order.orderNumber} was split into ${codes}: name the parcel whose lines are disputed`,
    );
  }
  if (!parcels.some((p) => p.code === parcel)) {
    throw new Error(`parcel: must be one of order ${order.orderNumber}'s parcels (${codes})`);
  }
  return parcel;
}

export function disputeStatus(orders: OrderClient, workflowId: string): Promise<DisputeStatus> {
  return orders.client.workflow.getHandle(workflowId).query(disputeStatusQuery);
}

// ---- what an operator sees and does: reasons, the order's disputes, cancel --------------------

/** What the supplier offers to dispute on an order now (disputeProducts, disputeConfirmInfo). */
export interface DisputeTermsView {
  orderNumber: string;
  svcOrderId: string;
  /** Every line; `canChoose` false while an unfinished dispute exists or nothing is left. */
  lines: {
    lineItemId: string;
    sku?: string;
    name?: string;
    /** USD per unit. */
    price: number;
    /** Units that can still be disputed. */
    quantity: number;
    canChoose: boolean;
  }[];
  /** The reasons offered for the choosable lines; none when no line can be chosen. */
  reasons: { disputeReasonId: number; reasonName: string }[];
  /** Refundable amount for all choosable units, USD. */
  maxAmount?: number;
  /** What may be asked for. */
  expect: ('refund' | 'reissue')[];
}

/** The supplier's terms for disputing the order's lines (all choosable units unless `lines`). */
export async function disputeTerms(
  supplier: SupplierClient,
  orderNumber: string,
  svcOrderId: string,
  lines: readonly { lineItemId: string; quantity: number }[] = [],
): Promise<DisputeTermsView> {
  const offered = await supplier.api.disputeProducts({ orderId: svcOrderId });
  const all = offered.productInfoList.flatMap((p) =>
    p.lineItemId == null
      ? []
      : [
          {
            lineItemId: p.lineItemId,
            ...(p.sku != null && { sku: p.sku }),
            ...(p.svcProductName != null && { name: p.svcProductName }),
            price: p.price ?? 0,
            quantity: p.quantity ?? 0,
            canChoose: p.canChoose !== false && (p.quantity ?? 0) > 0,
          },
        ],
  );
  const chosen =
    lines.length > 0
      ? lines.map((l) => ({
          ...l,
          price: all.find((a) => a.lineItemId === l.lineItemId)?.price ?? 0,
        }))
      : all
          .filter((l) => l.canChoose)
          .map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity, price: l.price }));
  const base = { orderNumber, svcOrderId, lines: all };
  if (chosen.length === 0 || !all.some((l) => l.canChoose)) {
    return { ...base, reasons: [], expect: [] };
  }
  const terms = await supplier.api.disputeConfirmInfo({
    orderId: svcOrderId,
    productInfoList: chosen,
  });
  const expectNames = { '1': 'refund', '2': 'reissue' } as const;
  return {
    ...base,
    reasons: terms.disputeReasonList.map((r) => ({
      disputeReasonId: r.disputeReasonId,
      reasonName: r.reasonName ?? '',
    })),
    ...(terms.maxAmount != null && { maxAmount: terms.maxAmount }),
    expect: terms.expectResultOptionList.flatMap((o) =>
      o === '1' || o === '2' ? [expectNames[o]] : [],
    ),
  };
}

export interface OrderDispute {
  workflowId: string;
  businessDisputeId: string;
  /** The workflow is open (the dispute may still be cancelled). */
  running: boolean;
  startedAt: string;
}

/** The order's dispute workflows on the account's queue, newest first (from visibility). */
export async function orderDisputes(
  orders: OrderClient,
  orderNumber: string,
): Promise<OrderDispute[]> {
  const prefix = disputeWorkflowId(orderNumber, '', orders.account);
  const quoted = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const query =
    `WorkflowId STARTS_WITH ${quoted(prefix)} AND WorkflowType = ${quoted(DISPUTE_WORKFLOW)}` +
    ` AND TaskQueue = ${quoted(orders.queues.orders)}`;
  const found: OrderDispute[] = [];
  for await (const info of orders.client.workflow.list({ query })) {
    found.push({
      workflowId: info.workflowId,
      businessDisputeId: info.workflowId.slice(prefix.length),
      running: info.status.name === 'RUNNING',
      startedAt: info.startTime.toISOString(),
    });
  }
  return found.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** Asks the dispute workflow to cancel (its `cancel` Update); a refusal says why. */
export async function cancelDisputeWorkflow(
  orders: OrderClient,
  orderNumber: string,
  workflowId: string,
  input: CancelInput,
): Promise<ActionResult> {
  try {
    return await orders.client.workflow
      .getHandle(workflowId)
      .executeUpdate(cancelUpdate, { args: [input] });
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    throw new OrderActionRejectedError(
      orderNumber,
      'cancel dispute',
      err.cause?.message ?? err.message,
    );
  }
}
