/**
 * Opening and following disputes (docs/architecture.md §11): one `disputeOrder` workflow per
 * dispute, id `dispute:<orderNumber>:<businessDisputeId>`. The businessDisputeId is derived from
 * the request itself, so asking twice for the same dispute finds the first instead of opening a
 * second.
 */
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import {
  DISPUTE_WORKFLOW,
  disputeStatusQuery,
  disputeWorkflowId,
  type DisputeInput,
  type DisputeStatus,
} from './definitions.js';
import { canonicalJson, type OrderClient } from './orderClient.js';
import { OrderNumber } from '../temporal/searchAttributes.js';

export interface DisputeRequest {
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
  const order = await orders.status(orderNumber);
  if (order.svcOrderId === undefined) {
    throw new Error(`order ${orderNumber} was never created at the supplier: nothing to dispute`);
  }
  const businessDisputeId = businessDisputeIdFor(orderNumber, request);
  const workflowId = disputeWorkflowId(orderNumber, businessDisputeId);
  const input: DisputeInput = {
    orderNumber,
    svcOrderId: order.svcOrderId,
    businessDisputeId,
    lines: request.lines ?? [],
    expect: request.expect ?? 'refund',
    refundTo: request.refundTo ?? 'balance',
    ...(request.reasonId !== undefined && { reasonId: request.reasonId }),
    message,
    imageUrls: request.imageUrls ?? [],
    checkEverySeconds: request.checkEverySeconds ?? 3_600,
  };
  try {
    await orders.client.workflow.start(DISPUTE_WORKFLOW, {
      workflowId,
      taskQueue: orders.queues.orders,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [{ key: OrderNumber, value: orderNumber }],
    });
    return { outcome: 'started', workflowId, businessDisputeId };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { outcome: 'existing', workflowId, businessDisputeId };
  }
}

export function disputeStatus(orders: OrderClient, workflowId: string): Promise<DisputeStatus> {
  return orders.client.workflow.getHandle(workflowId).query(disputeStatusQuery);
}
