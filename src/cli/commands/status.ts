/**
 * `dropflow status <orderNumber> [--json]`: the order workflow's `status` query. Human output:
 * stage, supplier ids, amounts, tracking, interception reasons or error, where its store events
 * stand, timeline; `--json`: the snapshot itself, one JSON document.
 */
import { parcelLines, parcelsGlance } from '../../order/parcels.js';
import type { Command } from 'commander';

import { orderWorkflowId, type OrderStatus } from '../../order/contract.js';
import { type FailureInfo, failureText } from '../../supplier/failureDetails.js';
import type { StoreEventsView } from '../../storeEvents/contract.js';
import type { DeadlineView } from '../../terms/sla.js';
import { printJson, printLines } from '../output.js';
import { orderCommand, withAccountOrders, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, type TemporalFlags } from '../temporal.js';

interface StatusFlags extends TemporalFlags, AccountFlags {
  json?: boolean;
}

function money(value: number | undefined): string | undefined {
  return value === undefined ? undefined : value.toFixed(2);
}

/** `label  value` rows, leaving out the empty ones. */
function rows(entries: readonly (readonly [string, string | undefined])[]): string[] {
  const present = entries.filter(
    (e): e is readonly [string, string] => e[1] !== undefined && e[1] !== '',
  );
  const width = Math.max(0, ...present.map(([label]) => label.length));
  return present.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
}

function joined(parts: readonly (string | undefined)[]): string | undefined {
  const present = parts.filter((p): p is string => p !== undefined);
  return present.length === 0 ? undefined : present.join('  ');
}

function failure(e: FailureInfo): string {
  const details = joined([
    e.code !== undefined ? `code ${e.code}` : undefined,
    e.requestId !== undefined ? `requestId ${e.requestId}` : undefined,
  ]);
  return `${failureText(e)}${details !== undefined ? ` (${details})` : ''}`;
}

/**
 * Where an order's (or dispute's) store events stand, in one line: how many were delivered, and
 * what waits — the oldest waiting event, its failed attempts, the store's last answer and when it
 * is tried again.
 */
export function formatStoreEvents(v: StoreEventsView): string {
  if (v.mode === 'off') return 'off (the workers have no STORE_EVENTS_URL)';
  const delivered = `${v.delivered} delivered`;
  const [oldest] = v.waiting;
  if (oldest === undefined) return delivered;
  let state: string;
  if (v.attempts === 0 || v.lastFailure === undefined) state = 'being delivered';
  else {
    state = `attempt ${v.attempts} failed at ${v.lastFailure.at}: ${v.lastFailure.message}`;
    if (v.nextAttemptAt !== undefined) state += `; next attempt ${v.nextAttemptAt}`;
  }
  return `${delivered}, ${v.waiting.length} waiting: ${oldest.type} ${oldest.id} (${state})`;
}

/** One deadline in one line: which, how long, from where, when due, and how it stands. */
export function formatDeadline(d: DeadlineView): string {
  const state =
    d.state === 'met'
      ? `met ${d.metAt}`
      : d.state === 'missed'
        ? d.metAt === undefined
          ? 'MISSED, not met yet'
          : `MISSED, met ${d.lateSeconds} s late (${d.metAt})`
        : d.state === 'pending'
          ? 'pending'
          : 'not started';
  const due = d.dueAt === undefined ? '' : `, due ${d.dueAt}`;
  return `${d.deadline} within ${d.within} (${d.source}${due}): ${state}`;
}

/** `workflowId`: the order's, which names its account (default: the default account's). */
export function formatStatus(
  s: OrderStatus,
  workflowId: string = orderWorkflowId(s.orderNumber),
): string[] {
  const a = s.amounts ?? {};
  const lines = rows([
    ['order', `${s.orderNumber} (workflow ${workflowId})`],
    ['stage', s.stage],
    ['flow', s.flow],
    ['waiting for', s.waitingFor],
    ['svc order', s.svcOrderId],
    ['shipment', s.shipmentOrderId],
    ['pay id', s.payId],
    ['logistics', s.logisticName],
    [
      'amounts',
      joined([
        a.orderAmount !== undefined ? `order ${money(a.orderAmount)}` : undefined,
        a.productAmount !== undefined ? `products ${money(a.productAmount)}` : undefined,
        a.postageAmount !== undefined ? `postage ${money(a.postageAmount)}` : undefined,
      ]),
    ],
    ['tracking', joined([s.trackNumber, s.trackingUrl])],
    ['parcels', parcelsGlance(s.parcels)],
    ['delivered proof', s.proofOfDelivery?.join(', ')],
    ['error', s.error === undefined ? undefined : failure(s.error)],
    ['store events', s.storeEvents === undefined ? undefined : formatStoreEvents(s.storeEvents)],
  ]);
  lines.push(...parcelLines(s.parcels));
  if ((s.deadlines ?? []).length > 0) {
    lines.push('deadlines:');
    for (const d of s.deadlines!) lines.push(`  ${formatDeadline(d)}`);
  }
  if (s.interception !== undefined) {
    lines.push(`intercepted at ${s.interception.step}:`);
    for (const r of s.interception.reasons) {
      lines.push(`  ${r.code !== undefined ? `${r.code} ` : ''}${r.message}`);
    }
  }
  const events = s.trackingEvents ?? [];
  if (events.length > 0) {
    lines.push('tracking events:');
    for (const e of events) {
      lines.push(`  ${[e.eventTime, e.status, e.activity, e.location].filter(Boolean).join('  ')}`);
    }
  }
  lines.push('timeline:');
  for (const t of s.timeline) {
    lines.push(`  ${t.at}  ${t.stage}${t.note !== undefined ? `  ${t.note}` : ''}`);
  }
  return lines;
}

export function register(program: Command): void {
  temporalOptions(
    orderCommand(
      program,
      'status',
      "an order's stage, supplier ids, amounts, tracking, problems and timeline",
    ).option('--json', 'print the status snapshot as one JSON document'),
  ).action(async (orderNumber: string, flags: StatusFlags) => {
    const { status, workflowId } = await withAccountOrders(flags, async (orders) => ({
      status: await orders.status(orderNumber),
      workflowId: orders.workflowIdOf(orderNumber),
    }));
    if (flags.json === true) printJson(status);
    else printLines(formatStatus(status, workflowId));
  });
}
