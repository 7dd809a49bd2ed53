/**
 * What the security tests look at: the supplier calls that act (from the sandbox's own counters),
 * the supplier news a run's history holds, and the order's timeline notes.
 */
import type { WorkflowHandle } from '@temporalio/client';

import { statusQuery, type OrderStatus } from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { takenCalls, type accountStats } from '../support/sandbox.js';

type Stats = Awaited<ReturnType<typeof accountStats>>;

/** Endpoints that change something at the supplier. */
const ACTING = [
  'shopping/order/createOrderV3',
  'shopping/order/addCart',
  'shopping/order/addCartConfirm',
  'shopping/order/saveGenerateParentOrder',
  'shopping/order/updateLogistics',
  'shopping/order/confirmOrder',
  'shopping/order/deleteOrder',
  'shopping/pay/payBalanceV2',
  'shopping/pay/payBalance',
  'product/conn/connection',
  'disputes/create',
  'disputes/cancel',
];

/** The acting calls between two readings of an account's stats, by endpoint: {} when none. */
export function actingCalls(before: Stats, after: Stats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const path of ACTING) {
    const n = takenCalls(after, path) - takenCalls(before, path);
    if (n > 0) out[path] = n;
  }
  return out;
}

/** The supplier-news signals (webhooks, sweeps) a run's history holds. */
export async function newsSignals(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) =>
    ['supplierEvent', 'supplierStatus'].includes(
      e.workflowExecutionSignaledEventAttributes?.signalName ?? '',
    ),
  ).length;
}

/**
 * The order's status once its timeline has a note matching `note`, or once `acted` holds of it
 * (the push was acted on: the caller's assertions then report it).
 */
export function notedOrActed(
  handle: WorkflowHandle,
  note: RegExp,
  acted: (s: OrderStatus) => boolean,
): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId}: a note ${String(note)}, or the push acted on`,
    () => handle.query(statusQuery),
    (s) => acted(s) || s.timeline.some((t) => note.test(t.note ?? '')),
    60_000,
  );
}
