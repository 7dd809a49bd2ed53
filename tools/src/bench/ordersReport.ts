/** The orders bench's table (stdout) and its one-line JSON. */
import type { PhaseResult } from './orderPhase.js';
import type { OrdersBenchResult } from './ordersBench.js';
import type { StoreFigures } from './storeFigures.js';

/** Kinds of action named per phase, largest first. */
const DOMINANT_KINDS = 4;

const fixed = (digits: number) => (v: number | null) => (v === null ? '-' : v.toFixed(digits));
const two = fixed(2);
const whole = fixed(0);
const seconds = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
}

function boundLabel(r: PhaseResult): string {
  return r.batchSize === null ? 'unbatched' : `batches of ${r.batchSize}`;
}

export function dominantKinds(r: PhaseResult): string {
  return Object.entries(r.actionsByKind)
    .sort(([, a], [, b]) => b - a)
    .slice(0, DOMINANT_KINDS)
    .map(([kind, n]) => `${kind} ${n.toFixed(1)}`)
    .join(', ');
}

/** The store rows, when the orders came from a store double. */
function storeRows(both: (label: string, f: (r: PhaseResult) => string) => string[]): string[][] {
  const of = (f: (s: StoreFigures) => string) => (r: PhaseResult) =>
    r.store === undefined ? '-' : f(r.store);
  return [
    both(
      'store calls per order',
      of((s) => two(s.callsPerOrder)),
    ),
    both(
      '  refused by its rate limit',
      of((s) => whole(s.refused)),
    ),
    both(
      '  orders fulfilled in the store',
      of((s) => `${s.ordersFulfilled} (${s.fulfillments} fulfillments)`),
    ),
    both(
      'supplier tracking → store p50',
      of((s) => seconds(s.trackingToFulfillmentP50Ms)),
    ),
    both(
      'supplier tracking → store p99',
      of((s) => seconds(s.trackingToFulfillmentP99Ms)),
    ),
  ];
}

function heading(r: PhaseResult): string {
  const rate = `at ${r.ratePerSecond} requests/s (the account's limit and the worker's rate)`;
  if (r.store === undefined) {
    return `orders: ${r.orders} flow-B orders per phase, submitted at once, ${rate}`;
  }
  return `orders: ${r.orders} orders per phase placed at once in a ${r.store.platform} store double, arriving as its signed webhooks (flow B, cheapest line), tracking written back to it; ${rate}`;
}

export function formatOrdersBench(result: OrdersBenchResult): string[] {
  const { off, on } = result;
  const both = (label: string, f: (r: PhaseResult) => string) => [label, f(off), f(on)];
  const rows = [
    ['', 'batching off', 'batching on'],
    both('orders paid / completed', (r) => `${r.paid}/${r.completed} of ${r.orders}`),
    both('supplier calls per order to PAID', (r) => two(r.callsPerOrder)),
    both('  … to COMPLETED', (r) => two(r.callsPerOrderToCompleted)),
    both('  refused as rate-limited to PAID', (r) => whole(r.rateLimitedToPaid)),
    both('  orders per payment call', (r) => fixed(1)(r.ordersPerPayment)),
    both('orders per hour to PAID', (r) => whole(r.ordersPerHour)),
    both('  bound at the rate', (r) => `${whole(r.boundOrdersPerHour)} (${boundLabel(r)})`),
    both('  fraction of the bound', (r) => two(r.fractionOfBound)),
    both('Temporal actions per order', (r) => two(r.actionsPerOrder)),
    both('  workflow executions counted', (r) => String(r.workflowExecutions)),
    both('submit → CREATED p50', (r) => seconds(r.p50ToCreatedMs)),
    both('submit → CREATED p99', (r) => seconds(r.p99ToCreatedMs)),
    both('submit → PAID p50', (r) => seconds(r.p50ToPaidMs)),
    both('submit → PAID p95', (r) => seconds(r.p95ToPaidMs)),
    both('worker peak RSS (MB)', (r) => whole(r.workerRssMb)),
    both('first submit → last completed', (r) => seconds(r.durationMs)),
    ...(off.store !== undefined || on.store !== undefined ? storeRows(both) : []),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  const notes = [
    ...off.notes.map((n) => `batching off: ${n}`),
    ...on.notes.map((n) => `batching on: ${n}`),
  ];
  return [
    heading(off),
    '',
    ...rows.map((cells) => `  ${row(cells, widths)}`),
    '',
    `  actions per order by kind, off: ${dominantKinds(off)}`,
    `  actions per order by kind, on:  ${dominantKinds(on)}`,
    ...(notes.length > 0 ? ['', ...notes.map((n) => `  note: ${n}`)] : []),
    ...(result.workDir !== undefined
      ? [`  logs, databases and their encryption key kept in ${result.workDir}`]
      : []),
  ];
}

/** The `--json` line: `{"off": {...}, "on": {...}}`. */
export function ordersBenchJson(result: OrdersBenchResult): string {
  return JSON.stringify({ off: result.off, on: result.on });
}
