/**
 * Every metric dropflow defines, in one place: name, kind, the labels dropflow sets, and what it
 * means. The code creates its instruments from these definitions (workers, gateway, workflow
 * code), and the dashboard and alert rules under deploy/ are checked against them
 * (test/deploy/metrics.test.ts). All go through the Temporal SDK's metric meter, so a process
 * serves them with the SDK's own series on one Prometheus `/metrics`.
 *
 * Workflow code imports this module: it must stay sandbox-safe (type imports only).
 */
import type { MetricCounter, MetricGauge, MetricHistogram, MetricMeter } from '@temporalio/common';

export type MetricKind = 'counter' | 'histogram' | 'gauge';

export interface MetricDefinition {
  name: string;
  kind: MetricKind;
  /** The labels dropflow sets (the SDK adds its own to workflow and activity metrics). */
  labels: readonly string[];
  /** Only histograms: the unit of what they record. */
  unit?: string;
  /** Only histograms: bucket boundaries (the SDK's default ones are too coarse for latency). */
  buckets?: readonly number[];
  help: string;
}

export const METRICS = {
  supplierRequests: {
    name: 'dropflow_supplier_requests',
    kind: 'counter',
    labels: ['endpoint', 'code'],
    help: "supplier requests by endpoint and outcome: the envelope's code, http_<status> without an envelope, network without an answer",
  },
  supplierRequestLatency: {
    name: 'dropflow_supplier_request_latency',
    kind: 'histogram',
    labels: ['endpoint'],
    unit: 'ms',
    buckets: [10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000],
    help: 'time from sending a supplier request to the end of its answer (or its failure), ms',
  },
  supplierRateLimited: {
    name: 'dropflow_supplier_rate_limited',
    kind: 'counter',
    labels: ['endpoint'],
    help: 'supplier requests refused for the rate limit (1600200, or HTTP 429)',
  },
  reconciliations: {
    name: 'dropflow_reconciliations',
    kind: 'counter',
    labels: ['step', 'result', 'account'],
    help: 'look-ups settling a supplier call whose outcome was unknown: found (done), not_found (proven not done), failed (the look-ups kept failing)',
  },
  orderStageEntered: {
    name: 'dropflow_order_stage_entered',
    kind: 'counter',
    labels: ['stage', 'account'],
    help: 'orders entering each stage',
  },
  orders: {
    name: 'dropflow_orders',
    kind: 'gauge',
    labels: ['task_queue', 'stage'],
    help: "running order workflows of the account's orders queue per stage (visibility, every minute)",
  },
  ordersNeedingPerson: {
    name: 'dropflow_orders_needing_person',
    kind: 'gauge',
    labels: ['task_queue'],
    help: "running order workflows of the account's orders queue waiting for a person (NeedsAttention)",
  },
  ordersLate: {
    name: 'dropflow_orders_late',
    kind: 'counter',
    labels: ['deadline', 'account'],
    help: 'order deadlines missed (SlaBreached), by deadline: paid, shipped, firstScan, delivered',
  },
  storeEventsBehind: {
    name: 'dropflow_store_events_behind',
    kind: 'gauge',
    labels: ['task_queue'],
    help: 'open order and dispute workflows whose store events wait after a failed delivery attempt',
  },
  supplierKeyRefused: {
    name: 'dropflow_supplier_key_refused',
    kind: 'gauge',
    labels: ['task_queue'],
    help: "1 while the supplier refuses the account's API key (getAccessToken 1601000; its session's keyRefusedSince), else 0 (every minute)",
  },
  supplierNoTokenSeconds: {
    name: 'dropflow_supplier_no_token_seconds',
    kind: 'gauge',
    labels: ['task_queue'],
    help: "seconds the account's session has had no usable access token, 0 while it has one (every minute)",
  },
  webhookGapSeconds: {
    name: 'dropflow_webhook_gap_seconds',
    kind: 'gauge',
    labels: ['task_queue'],
    help: "seconds the account's news has reached orders only through tracking sweeps (its sweeper's webhook health), 0 while pushes arrive (every minute)",
  },
  storeEventDeliveries: {
    name: 'dropflow_store_event_deliveries',
    kind: 'counter',
    labels: ['result'],
    help: 'store event delivery attempts: delivered, failed, or refused by a connected store',
  },
  storeSweeps: {
    name: 'dropflow_store_sweeps',
    kind: 'counter',
    labels: ['result'],
    help: "order sweeps of connected WooCommerce sites (pages of recent orders): swept, refused (the site refuses the key: the sweep waits at store-refused), unavailable (no answer, 5xx, or 429 past the client's bound)",
  },
  storeSweptOrders: {
    name: 'dropflow_store_swept_orders',
    kind: 'counter',
    labels: ['outcome'],
    help: 'orders a store sweep handed over: started (its webhook was lost or late), existing (its webhook came first), told (a store cancellation), refused (dropflow cannot take it as it is)',
  },
  gatewayResponses: {
    name: 'dropflow_gateway_responses',
    kind: 'counter',
    labels: ['route', 'status'],
    help: 'gateway responses by route pattern and HTTP status',
  },
  webhookEvents: {
    name: 'dropflow_webhook_events',
    kind: 'counter',
    labels: ['outcome', 'account'],
    help: 'supplier webhook requests: received (every one), then rejected, duplicate, held, signalled, skipped or failed',
  },
  checkoutBatchesLagging: {
    name: 'dropflow_checkout_batches_lagging',
    kind: 'counter',
    labels: ['step', 'account'],
    help: "checkout batches that waited (a look-up, the supplier's rate limit) past the coordinator's bound, by the step they wait at; `checkoutStatus` lists their orders",
  },
  checkoutBatchesFull: {
    name: 'dropflow_checkout_batches_full',
    kind: 'counter',
    labels: [],
    help: 'times orders waited for a checkout batch while the most batches at once (MAX_BATCHES_IN_FLIGHT) were under way',
  },
  checkoutOrdersLeftOut: {
    name: 'dropflow_checkout_orders_left_out',
    kind: 'counter',
    labels: [],
    help: "unconfirmed orders the checkout coordinator did not carry into its next run (its state's size bound); each joins again after its own bounded wait",
  },
  orderMarginPercent: {
    name: 'dropflow_order_margin_percent',
    kind: 'histogram',
    labels: ['at', 'account'],
    unit: 'percent',
    buckets: [0, 5, 10, 15, 20, 25, 30, 40, 50, 75],
    help: 'margin of orders with a margin rule, in percent of the sale, at each check (cart, payment, batch); a negative margin counts as 0',
  },
  marginHeld: {
    name: 'dropflow_margin_held',
    kind: 'counter',
    labels: ['at', 'account'],
    help: 'orders whose margin rule failed and that wait in AWAITING_APPROVAL (cart, payment) or left their checkout batch (batch)',
  },
  marginSavedCents: {
    name: 'dropflow_margin_saved_cents',
    kind: 'counter',
    labels: ['account'],
    help: 'postage saved (US cents) by logistics changes that kept an order within its margin rule',
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * The series names the SDK's Prometheus exporter serves for a metric: counters as named (no
 * `_total`), histograms as `_bucket`, `_sum` and `_count`.
 */
export function exportedNames(def: MetricDefinition): string[] {
  return def.kind === 'histogram'
    ? [`${def.name}_bucket`, `${def.name}_sum`, `${def.name}_count`]
    : [def.name];
}

type Of<K extends MetricKind> = MetricDefinition & { kind: K };

export function counterOf(meter: MetricMeter, def: Of<'counter'>): MetricCounter {
  return meter.createCounter(def.name, undefined, def.help);
}

export function histogramOf(meter: MetricMeter, def: Of<'histogram'>): MetricHistogram {
  return meter.createHistogram(def.name, 'int', def.unit, def.help);
}

export function gaugeOf(meter: MetricMeter, def: Of<'gauge'>): MetricGauge {
  return meter.createGauge(def.name, 'int', undefined, def.help);
}

/** Bucket boundaries by metric name, for the runtime's Prometheus exporter. */
export function histogramBuckets(): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const def of Object.values(METRICS) as MetricDefinition[]) {
    if (def.buckets !== undefined) out[def.name] = [...def.buckets];
  }
  return out;
}
