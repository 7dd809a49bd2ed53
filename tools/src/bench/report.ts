/** The bench's table (stdout). */
import type { GatewayBenchResult } from './gatewayBench.js';
import type { LoadStats } from './stats.js';

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '-');
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '-');

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
}

export function formatGatewayBench(r: GatewayBenchResult): string[] {
  const head = ['endpoint', 'ok', 'failed', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s'];
  const line = (name: string, s: LoadStats) => [
    name,
    String(s.ok),
    String(s.failed),
    ms(s.p50),
    ms(s.p90),
    ms(s.p99),
    ms(s.max),
    s.throughput.toFixed(0),
  ];
  const rows = [
    head,
    line('bare node:http', r.bare),
    line('gateway webhook', r.gateway),
    ['gateway ÷ bare', '', '', x(r.ratio.p50), '', x(r.ratio.p99), '', x(r.ratio.throughput)],
  ];
  const widths = head.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  return [
    `gateway: ${r.scenario}`,
    `  loopback, ${r.concurrency} concurrent, up to ${r.requests} requests per endpoint, ${r.bodyBytes}-byte bodies, Temporal dev server ${r.temporal}`,
    '',
    ...rows.map((cells) => `  ${row(cells, widths)}`),
  ];
}
