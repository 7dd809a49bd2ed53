/** The chaos run's report: a table for people, one JSON object for machines. */
import type { Verdict } from './measure.js';

export interface FaultTally {
  /** Times each kind hit the run: calls a sandbox fault answered, or disruptions done. */
  hit: Record<string, number>;
  /** Sandbox faults armed per kind (calls they could hit); disruptions are not armed. */
  armed: Record<string, number>;
}

export interface ChaosReport {
  seed: number;
  runId: string;
  durationMs: number;
  verdict: Verdict;
  faults: FaultTally;
  /** What the run could not do, or did differently, in words. */
  notes: string[];
  /** Logs and databases of the run, when kept. */
  workDir: string | undefined;
  /** The dev server's lowered limits (`--lowered-limits`), when the run had them. */
  loweredLimits?: Readonly<Record<string, number>>;
}

/** The JSON summary: exactly these keys. */
export type ChaosSummary = Pick<
  Verdict,
  | 'orders'
  | 'completed'
  | 'attention'
  | 'failedWorkflows'
  | 'duplicateCreates'
  | 'secondPayments'
  | 'stuckWithoutReason'
  | 'mismatches'
  | 'parcelsLost'
  | 'deliveredTooEarly'
  | 'submitToCreated'
  | 'stageMismatches'
  | 'workflowTaskFailures'
  | 'supplierCalls'
> & { faultsByKind: Record<string, number>; loweredLimits?: Readonly<Record<string, number>> };

export function summary(r: ChaosReport): ChaosSummary {
  const v = r.verdict;
  return {
    orders: v.orders,
    faultsByKind: r.faults.hit,
    completed: v.completed,
    attention: v.attention,
    failedWorkflows: v.failedWorkflows,
    duplicateCreates: v.duplicateCreates,
    secondPayments: v.secondPayments,
    stuckWithoutReason: v.stuckWithoutReason,
    mismatches: v.mismatches,
    parcelsLost: v.parcelsLost,
    deliveredTooEarly: v.deliveredTooEarly,
    submitToCreated: v.submitToCreated,
    stageMismatches: v.stageMismatches,
    workflowTaskFailures: v.workflowTaskFailures,
    supplierCalls: v.supplierCalls,
    ...(r.loweredLimits !== undefined && { loweredLimits: r.loweredLimits }),
  };
}

/** The counters that must be 0 for the run to pass (issue 16: task failures and stage mismatches too). */
export function failingCounters(s: ChaosSummary): string[] {
  const counters = {
    failedWorkflows: s.failedWorkflows,
    duplicateCreates: s.duplicateCreates,
    secondPayments: s.secondPayments,
    stuckWithoutReason: s.stuckWithoutReason,
    mismatches: s.mismatches,
    parcelsLost: s.parcelsLost,
    deliveredTooEarly: s.deliveredTooEarly,
    stageMismatches: s.stageMismatches.length,
    workflowTaskFailures: s.workflowTaskFailures,
  };
  return Object.entries(counters)
    .filter(([, n]) => n !== 0)
    .map(([name]) => name);
}

function rows(pairs: readonly (readonly [string, string | number])[]): string[] {
  const width = Math.max(0, ...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `  ${k.padEnd(width)}  ${String(v).padStart(6)}`);
}

function seconds(ms: number | null): string {
  return ms === null ? '-' : (ms / 1000).toFixed(1);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

export function formatTable(r: ChaosReport): string {
  const s = summary(r);
  const v = r.verdict;
  const kinds = [...new Set([...Object.keys(r.faults.hit), ...Object.keys(r.faults.armed)])];
  const faultRows = kinds.map((k) => {
    const armed = r.faults.armed[k];
    const hit = r.faults.hit[k] ?? 0;
    return [k, armed === undefined ? `${hit}` : `${hit} / ${armed}`] as const;
  });
  const failing = failingCounters(s);
  const lines = [
    `dropflow chaos: ${v.orders} orders, seed ${r.seed}, run ${r.runId}, ${duration(r.durationMs)}`,
    '',
    'Orders by final stage',
    ...rows(Object.entries(v.byStage).sort(([a], [b]) => a.localeCompare(b))),
  ];
  if (Object.keys(v.disputesByStage).length > 0) {
    lines.push('', 'Disputes by stage', ...rows(Object.entries(v.disputesByStage)));
  }
  lines.push(
    '',
    'Faults injected (calls hit / armed)',
    ...rows(faultRows),
    '',
    'Counters',
    ...rows([
      ['completed', s.completed],
      ['attention', s.attention],
      ['failedWorkflows', s.failedWorkflows],
      ['duplicateCreates', s.duplicateCreates],
      ['secondPayments', s.secondPayments],
      ['stuckWithoutReason', s.stuckWithoutReason],
      ['mismatches', s.mismatches],
      ['parcels lost', s.parcelsLost],
      ['delivered too early', s.deliveredTooEarly],
      ['stageMismatches', s.stageMismatches.length],
      ['workflowTaskFailures', s.workflowTaskFailures],
    ]),
    '',
    `Submit → CREATED over ${s.submitToCreated.orders} orders`,
    ...rows([
      ['p50 s', seconds(s.submitToCreated.p50Ms)],
      ['p99 s', seconds(s.submitToCreated.p99Ms)],
    ]),
    '',
    'Mutating supplier calls (rate-limit refusals not counted)',
    ...rows([
      ...Object.entries(s.supplierCalls.byPath),
      ['per order', s.supplierCalls.perOrder.toFixed(2)],
      ['checkout calls per order', s.supplierCalls.checkoutPerOrder.toFixed(2)],
    ]),
  );
  if (v.stageMismatches.length > 0) {
    lines.push('', 'Search attribute and status disagree (FulfillmentStage / status)');
    for (const m of v.stageMismatches) {
      lines.push(`  ${m.orderNumber}  ${m.searchAttribute ?? '(unset)'} / ${m.status}`);
    }
  }
  if (v.failingTasks.length > 0) {
    lines.push('', 'Failed workflow tasks');
    for (const t of v.failingTasks) {
      lines.push(`  ${t.workflowId}  ${t.type}  ×${t.count}  ${t.last.cause}: ${t.last.message}`);
    }
  }
  if (v.unreadHistories.length > 0) {
    lines.push(
      '',
      `Histories not read (task failures not counted): ${v.unreadHistories.join(', ')}`,
    );
  }
  if (v.waiting.length > 0) {
    lines.push('', 'Waiting for a person');
    for (const w of v.waiting) lines.push(`  ${w.orderNumber}  ${w.stage}  ${w.reason}`);
  }
  if (v.findings.length > 0) {
    lines.push('', 'Findings');
    for (const f of v.findings) lines.push(`  ${f.counter}  ${f.subject}  ${f.detail}`);
  }
  if (r.notes.length > 0) lines.push('', 'Notes', ...r.notes.map((n) => `  ${n}`));
  if (r.workDir !== undefined) lines.push('', `Logs and databases kept in ${r.workDir}`);
  lines.push('', failing.length === 0 ? 'PASS' : `FAIL: ${failing.join(', ')}`);
  return lines.join('\n');
}
