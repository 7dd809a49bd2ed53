/**
 * deploy/grafana/dropflow-dashboard.json and deploy/prometheus/alerts.yml read dropflow's metrics
 * by the names Prometheus gets: every `dropflow_…` name they use is one src/telemetry/metrics.ts defines, as
 * the SDK's exporter serves it (checked here against a real exporter: counters without `_total`,
 * histograms as `_bucket`, `_sum`, `_count`), and every label they select or group by is one the
 * metric carries. The alert rules are valid YAML with expr, for, labels and annotations.
 */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import {
  counterOf,
  exportedNames,
  gaugeOf,
  histogramOf,
  METRICS,
  type MetricDefinition,
} from '../../src/telemetry/metrics.js';
import { runtimeMetricMeter } from '../../src/telemetry/runtimeMeter.js';
import { installMetricsRuntime, scrape } from '../support/metrics.js';

const metricsUrl = installMetricsRuntime();

const DEFINITIONS = Object.values(METRICS) as MetricDefinition[];
/** Exported series name → its definition. */
const BY_EXPORTED = new Map(DEFINITIONS.flatMap((d) => exportedNames(d).map((n) => [n, d])));
/** Labels a series may have besides dropflow's: the SDK's on workflow and activity metrics, the
 * histogram's bucket, and those Prometheus adds to every scraped series. */
const OTHER_LABELS = [
  'namespace',
  'taskQueue',
  'workflowType',
  'activityType',
  'le',
  'instance',
  'job',
];

interface Panel {
  id: number;
  title: string;
  type: string;
  datasource?: unknown;
  gridPos?: { x: number; y: number; w: number; h: number };
  targets?: { refId: string; expr: string }[];
}
interface Dashboard {
  title: string;
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; query?: string | { query: string } }[] };
}
interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

const dashboard = JSON.parse(
  readFileSync('deploy/grafana/dropflow-dashboard.json', 'utf8'),
) as Dashboard;
const alerts = parse(readFileSync('deploy/prometheus/alerts.yml', 'utf8')) as {
  groups: { name: string; rules: Rule[] }[];
};
const rules = alerts.groups.flatMap((g) => g.rules);

const dashboardExprs = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
  ...dashboard.templating.list.flatMap((v) =>
    v.query === undefined ? [] : [typeof v.query === 'string' ? v.query : v.query.query],
  ),
];
const alertExprs = rules.map((r) => String(r.expr));

/** Problems with the dropflow metrics and labels an expression uses; none when it is right. */
function problemsOf(expr: string): string[] {
  const problems: string[] = [];
  const used: MetricDefinition[] = [];
  for (const m of expr.matchAll(/\b(dropflow_[a-z0-9_]+)(\{[^}]*\})?/g)) {
    const def = BY_EXPORTED.get(m[1]!);
    if (def === undefined) {
      problems.push(`${m[1]} is not a metric dropflow exports`);
      continue;
    }
    used.push(def);
    for (const [, label] of (m[2] ?? '').matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) {
      if (!def.labels.includes(label!) && !OTHER_LABELS.includes(label!)) {
        problems.push(`${m[1]} has no label ${label}`);
      }
    }
  }
  for (const [, list] of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
    for (const label of list!.split(',').map((l) => l.trim())) {
      if (!used.some((d) => d.labels.includes(label)) && !OTHER_LABELS.includes(label)) {
        problems.push(`no metric of "${expr}" has the label ${label} it groups by`);
      }
    }
  }
  return problems;
}

describe('the names dropflow exports', () => {
  it('are what the SDK exporter serves for each metric', async () => {
    const url = await metricsUrl;
    const meter = runtimeMetricMeter();
    for (const def of DEFINITIONS) {
      const tags = Object.fromEntries(def.labels.map((l) => [l, 'deploy-test']));
      if (def.kind === 'counter') counterOf(meter, { ...def, kind: 'counter' }).add(1, tags);
      if (def.kind === 'gauge') gaugeOf(meter, { ...def, kind: 'gauge' }).set(1, tags);
      if (def.kind === 'histogram') {
        histogramOf(meter, { ...def, kind: 'histogram' }).record(1, tags);
      }
    }
    const served = new Set((await scrape(url)).map((s) => s.name));
    for (const def of DEFINITIONS) {
      for (const name of exportedNames(def)) expect(served, name).toContain(name);
      if (def.kind === 'counter') expect(served).not.toContain(`${def.name}_total`);
    }
  });

  it('are unique, and each metric is used by the dashboard', () => {
    expect(new Set(DEFINITIONS.map((d) => d.name)).size).toBe(DEFINITIONS.length);
    const text = dashboardExprs.join('\n');
    for (const def of DEFINITIONS) {
      expect(
        exportedNames(def).some((n) => new RegExp(`\\b${n}\\b`).test(text)),
        def.name,
      ).toBe(true);
    }
  });
});

describe('deploy/grafana/dropflow-dashboard.json', () => {
  it('queries only metrics and labels dropflow exports', () => {
    expect(dashboardExprs.length).toBeGreaterThan(0);
    expect(dashboardExprs.flatMap(problemsOf)).toEqual([]);
  });

  it('has the panels an operator needs, each with a query on the chosen data source', () => {
    const titles = dashboard.panels.map((p) => p.title);
    for (const title of [
      'Orders per stage',
      'Orders needing a person',
      'Supplier requests by code',
      'Supplier rate-limited',
      'Supplier latency p95',
      'Reconciliations',
      'Gateway responses by status',
      'Webhook events',
      'Store events behind',
    ]) {
      expect(titles).toContain(title);
    }
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const p of dashboard.panels) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.gridPos, p.title).toBeDefined();
    }
    expect(dashboard.templating.list.map((v) => v.name)).toContain('datasource');
  });

  it('the p95 latency is read from the histogram buckets', () => {
    const p95 = dashboard.panels.find((p) => p.title === 'Supplier latency p95');
    expect(p95?.targets?.[0]?.expr).toMatch(
      /histogram_quantile\(0\.95, .*dropflow_supplier_request_latency_bucket/,
    );
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  it('is a rule group whose every alert has expr, for, a severity and what to do', () => {
    expect(alerts.groups.length).toBeGreaterThan(0);
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const r of rules) {
      const name = String(r.alert);
      expect(r.alert, name).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
      expect(typeof r.expr, name).toBe('string');
      expect(r.for, name).toMatch(/^\d+[smhd]$/);
      expect(['warning', 'critical'], name).toContain(r.labels?.['severity']);
      expect(typeof r.annotations?.['summary'], name).toBe('string');
      expect(typeof r.annotations?.['description'], name).toBe('string');
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('queries only metrics and labels dropflow exports', () => {
    expect(alertExprs.flatMap(problemsOf)).toEqual([]);
  });

  it('watches orders needing a person, the supplier, the store-events backlog and the workers', () => {
    const rule = (metric: string) => rules.find((r) => String(r.expr).includes(metric));
    expect(rule('dropflow_orders_needing_person')?.for).toBe('15m');
    expect(rule('dropflow_store_events_behind')?.for).toBe('30m');
    expect(rule('dropflow_supplier_rate_limited')).toBeDefined();
    expect(alertExprs.some((e) => /code=~"[^"]*http_5[^"]*network/.test(e))).toBe(true);
    expect(alertExprs.some((e) => /^absent\(dropflow_/.test(e))).toBe(true);
  });
});

it('a wrong name or label is caught', () => {
  expect(problemsOf('sum(rate(dropflow_supplier_requests_total[5m]))')).toEqual([
    'dropflow_supplier_requests_total is not a metric dropflow exports',
  ]);
  expect(problemsOf('max(dropflow_orders{queue="x"})')).toEqual([
    'dropflow_orders has no label queue',
  ]);
  expect(problemsOf('sum by (stage) (rate(dropflow_webhook_events[5m]))')).toEqual([
    'no metric of "sum by (stage) (rate(dropflow_webhook_events[5m]))" has the label stage it groups by',
  ]);
  expect(problemsOf('rate(dropflow_supplier_request_latency[5m])')).toEqual([
    'dropflow_supplier_request_latency is not a metric dropflow exports',
  ]);
});
