/** The accounts bench's table (stdout) and its one-line JSON. */
import type { AccountsBenchResult } from './accountsResult.js';

const fixed = (digits: number) => (v: number | null) => (v === null ? '-' : v.toFixed(digits));
const two = fixed(2);
const seconds = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
}

/** `fleet of 3 workers`, and with `--churn` what happened to it. */
export function fleetLabel(fleet: AccountsBenchResult['fleet']): string {
  const n = fleet.workers;
  const label = `fleet of ${n} worker${n === 1 ? '' : 's'}`;
  return fleet.churn ? `${label} (churn: worker ${n + 1} joined, worker 1 left)` : label;
}

export function formatAccountsBench(r: AccountsBenchResult): string[] {
  const { accounts, big, workerRssMiB } = r.json;
  const head = [
    'account',
    'role',
    'tier/s',
    'paid',
    'calls/order',
    '1600200',
    'peak/s',
    'p50 → PAID',
    'p99 → PAID',
    'idle p99',
  ];
  const rows = [
    head,
    ...accounts.map((a) => [
      a.id,
      r.roles[a.id] ?? '',
      String(a.tier),
      `${r.paid[a.id] ?? 0}/${a.orders}`,
      two(a.callsPerOrder),
      String(a.rateLimited),
      String(a.peakRequestsPerSecond),
      seconds(a.p50ToPaidMs),
      seconds(a.p99ToPaidMs),
      seconds(a.idleP99ToPaidMs),
    ]),
  ];
  const widths = head.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  const arrived =
    r.backlogUnpaidAtSmallSubmit === undefined
      ? []
      : [
          `  the small accounts' orders arrived with ${r.backlogUnpaidAtSmallSubmit} of ${big.orders} backlog orders not paid yet`,
        ];
  return [
    `accounts: ${accounts.length} accounts on one ${fleetLabel(r.fleet)}; ${r.bigId} has a backlog of ${big.orders} flow-B orders`,
    '',
    ...rows.map((cells) => `  ${row(cells, widths)}`),
    '',
    `  backlog (${r.bigId}): drained in ${r.drainSeconds === null ? '-' : `${r.drainSeconds.toFixed(1)} s`}, ${two(big.fractionOfBound)} of its bound (batches of ${r.batchSize}), ${two(big.callsPerOrder)} supplier calls and ${two(big.actionsPerOrder)} Temporal actions per order (${r.executions} runs), ${big.timeouts} timeouts`,
    `  one batch window (the small accounts' allowance over the idle fleet): ${seconds(r.batchWindowMs)}`,
    ...arrived,
    `  worker peak RSS (the largest, its sized child included): ${workerRssMiB === null ? '-' : `${workerRssMiB.toFixed(0)} MiB`}`,
    ...Object.entries(r.overTier).map(
      ([id, window]) =>
        `  ${id}'s busiest second (ms after its first request): ${window.map((e) => `${e.ms} ${e.path}`).join(', ')}`,
    ),
    '',
    ...(r.failed.length === 0
      ? ['  every check passed']
      : r.failed.map((reason) => `  check failed: ${reason}`)),
    ...(r.workDir !== undefined
      ? [`  logs, databases and their encryption key kept in ${r.workDir}`]
      : []),
  ];
}

/** The `--json` line: `{accounts: [...], big: {...}, workerRssMiB}`. */
export function accountsBenchJson(r: AccountsBenchResult): string {
  const { accounts, big, workerRssMiB } = r.json;
  return JSON.stringify({
    accounts: accounts.map((a) => ({
      id: a.id,
      tier: a.tier,
      orders: a.orders,
      callsPerOrder: a.callsPerOrder,
      rateLimited: a.rateLimited,
      peakRequestsPerSecond: a.peakRequestsPerSecond,
      p50ToPaidMs: a.p50ToPaidMs,
      p99ToPaidMs: a.p99ToPaidMs,
      idleP99ToPaidMs: a.idleP99ToPaidMs,
    })),
    big: {
      orders: big.orders,
      fractionOfBound: big.fractionOfBound,
      callsPerOrder: big.callsPerOrder,
      actionsPerOrder: big.actionsPerOrder,
      timeouts: big.timeouts,
    },
    workerRssMiB,
  });
}
