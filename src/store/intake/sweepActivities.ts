/**
 * The orders-queue activities of a WooCommerce site's order sweep (store/sweep/storeOrderSweep.ts).
 * WooCommerce does not retry a webhook it could not deliver, so the sweep lists the site's orders
 * changed since its cursor (`GET /wc/v3/orders?modified_after=…&dates_are_gmt=true&status=…
 * &orderby=date&order=asc&per_page=100&page=n`, through the one WooCommerce client, rest.ts, which
 * waits out a 429 within its bound) and hands each to the webhook's own intake path
 * (handOver.ts): an order whose webhook was lost starts, one whose webhook came is `existing`.
 *
 * Oldest-created first: an order changed during the sweep joins the list before the page being
 * read, so the pages after it shift one on (an order read twice), never back (one missed). Orders
 * and their personal data stay in the activity: the workflow gets counts, keys and the cursor.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';

import { counterOf, METRICS } from '../../telemetry/metrics.js';
import { durationMs } from '../../terms/sla.js';
import { StoreApiError, StoreFailure } from '../apiError.js';
import {
  DEFAULT_SWEEP_EVERY,
  noSweepCounts,
  SWEEP_CURSOR_MEMO,
  sweepsOrders,
  SweepWait,
  type SweepCounts,
} from '../contract.js';
import type { Store } from '../../accounts/contract.js';
import { WooRest, type WooClientOptions } from '../woocommerce/rest.js';
import { handOver, type OrderIntake, type StoreOutcome } from './handOver.js';
import { factsIssues } from './storeOrder.js';
import { WooOrder, wooFacts } from './wooOrder.js';

/** The statuses the sweep lists: those the intake acts on (paid, and given up by the store). */
export const SWEPT_STATUSES = ['processing', 'completed', 'cancelled', 'refunded', 'failed'];
/** WooCommerce's largest page. */
export const SWEEP_PAGE_SIZE = 100;
/** Pages one activity reads before it hands back (it heartbeats after each). */
const PAGES_PER_CALL = 10;
/** The least time between two page requests of one sweep (the site serves its shoppers first). */
const PAGE_GAP_MS = 500;

export interface SweepPagesInput {
  connection: string;
  /** `modified_after`, ISO 8601 UTC. */
  since: string;
  page: number;
  /** `<order id>@<date_modified_gmt>` of orders taken by an earlier sweep: skipped unchanged. */
  seen: string[];
}

export type SweepPagesResult =
  | { kind: 'removed' }
  | {
      kind: 'swept';
      everyMs: number;
      /** The next page to read; absent: the sweep is done. */
      nextPage?: number;
      /** The latest `date_modified_gmt` listed (ISO 8601 UTC). */
      latest?: string;
      /** Keys of the orders taken (to skip while they stay unchanged). */
      taken: string[];
      counts: SweepCounts;
    }
  | {
      kind: 'waiting';
      everyMs: number;
      reason: SweepWait;
      message: string;
      retryAfterMs?: number;
    };

export interface SweepDeps {
  stores: { store(id: string): Store | undefined; refresh?(): Promise<void> } | undefined;
  intake: OrderIntake;
  client: Client;
  /** WooRest's options (tests shorten the 429 bound). */
  rest?: WooClientOptions;
  sleep?: (ms: number) => Promise<void>;
}

export function storeSweepActivities(deps: SweepDeps) {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return {
    async sweepStoreOrders(input: SweepPagesInput): Promise<SweepPagesResult> {
      await deps.stores?.refresh?.();
      const store = deps.stores?.store(input.connection);
      if (store?.platform !== 'woocommerce' || !sweepsOrders(store)) return { kind: 'removed' };
      const everyMs = durationMs(store.sweepEvery ?? DEFAULT_SWEEP_EVERY) ?? 300_000;
      const meter = Context.current().metricMeter;
      const rest = new WooRest(
        {
          apiBaseUrl: store.apiBaseUrl,
          consumerKey: store.secrets.consumerKey,
          consumerSecret: store.secrets.consumerSecret,
        },
        deps.rest,
      );
      try {
        const swept = await readPages(deps.intake, store, rest, input, sleep);
        counterOf(meter, METRICS.storeSweeps).add(1, { result: 'swept' });
        return { kind: 'swept', everyMs, ...swept };
      } catch (err) {
        if (!(err instanceof StoreApiError)) throw err;
        const refused = err.refused || err.kind === StoreFailure.Rejected;
        counterOf(meter, METRICS.storeSweeps).add(1, {
          result: refused ? 'refused' : 'unavailable',
        });
        Context.current().log.warn('store sweep: the site did not list its orders', {
          connection: store.id,
          kind: err.kind,
          status: err.status,
          message: err.message,
        });
        return {
          kind: 'waiting',
          everyMs,
          reason: refused ? SweepWait.Refused : SweepWait.Unavailable,
          message: err.message,
          ...(err.retryAfterMs !== undefined && { retryAfterMs: err.retryAfterMs }),
        };
      }
    },

    /**
     * The latest cursor of this sweep's earlier runs (an operator terminated it; it was started
     * again): the new run takes up there, so the orders of the gap are swept too. Runs are found
     * by id, whatever their status: visibility may not show the terminated one closed yet.
     */
    async storeSweepResumeCursor(q: {
      workflowId: string;
      runId: string;
    }): Promise<string | undefined> {
      const quoted = (v: string) => `'${v.replace(/'/g, "\\'")}'`;
      const query = `WorkflowId = ${quoted(q.workflowId)} AND RunId != ${quoted(q.runId)}`;
      let latest: string | undefined;
      let read = 0;
      for await (const run of deps.client.workflow.list({ query, pageSize: 20 })) {
        const cursor = run.memo?.[SWEEP_CURSOR_MEMO];
        if (typeof cursor === 'string' && (latest === undefined || cursor > latest))
          latest = cursor;
        read += 1;
        if (read >= 20) break;
      }
      return latest;
    },
  };
}
export type StoreSweepActivities = ReturnType<typeof storeSweepActivities>;

/** Up to PAGES_PER_CALL pages from `input.page`, each order handed over. */
async function readPages(
  intake: OrderIntake,
  store: Store,
  rest: WooRest,
  input: SweepPagesInput,
  sleep: (ms: number) => Promise<void>,
) {
  const counts = noSweepCounts();
  const seen = new Set(input.seen);
  const taken: string[] = [];
  let latest: string | undefined;
  let page = input.page;
  for (let read = 0; read < PAGES_PER_CALL; read += 1) {
    if (read > 0) await sleep(PAGE_GAP_MS);
    const before = rest.requests;
    const { items, totalPages } = await rest.page(listPath(input.since, page));
    counts.requests += rest.requests - before;
    for (const raw of items) {
      const order = await takeOrder(intake, store, raw, seen, counts);
      if (order === undefined) continue;
      if (order.modified !== undefined && (latest === undefined || order.modified > latest)) {
        latest = order.modified;
      }
      if (order.taken !== undefined) taken.push(order.taken);
    }
    Context.current().heartbeat({ page });
    if (page >= totalPages || items.length === 0) {
      return { taken, counts, ...(latest !== undefined && { latest }) };
    }
    page += 1;
  }
  return { taken, counts, nextPage: page, ...(latest !== undefined && { latest }) };
}

export function listPath(since: string, page: number): string {
  const q = new URLSearchParams({
    modified_after: since.slice(0, 19),
    dates_are_gmt: 'true',
    status: SWEPT_STATUSES.join(','),
    orderby: 'date',
    order: 'asc',
    per_page: String(SWEEP_PAGE_SIZE),
    page: String(page),
  });
  return `/wc/v3/orders?${q.toString()}`;
}

/** One listed order through the intake; undefined when it is not an order at all. */
async function takeOrder(
  intake: OrderIntake,
  store: Store,
  raw: unknown,
  seen: ReadonlySet<string>,
  counts: SweepCounts,
): Promise<{ modified?: string; taken?: string } | undefined> {
  counts.listed += 1;
  const parsed = WooOrder.safeParse(raw);
  if (!parsed.success) {
    counts.refused += 1;
    Context.current().log.warn('store sweep: an order the site listed is unreadable', {
      connection: store.id,
      fields: parsed.error.issues.map((i) => i.path.join('.')),
    });
    return undefined;
  }
  const facts = wooFacts(parsed.data);
  const at = facts.updatedAt === undefined ? NaN : Date.parse(facts.updatedAt);
  const modified = Number.isNaN(at) ? undefined : new Date(at).toISOString();
  const key = `${facts.orderId}@${modified ?? ''}`;
  if (seen.has(key)) {
    counts.skipped += 1;
    return { ...(modified !== undefined && { modified }) };
  }
  const issues = facts.cancelled ? [] : factsIssues(facts);
  let outcome: StoreOutcome | 'refused';
  if (issues.length > 0) outcome = 'refused';
  else {
    try {
      outcome = await handOver(intake, store, {
        eventId: `sweep:${key}`,
        kind: facts.cancelled ? 'cancelled' : 'order',
        facts,
      });
    } catch (err) {
      // The client's OrderInvalidError (its layer is above this one): dropflow cannot take it.
      if ((err as { name?: unknown }).name !== 'OrderInvalidError') throw err;
      outcome = 'refused';
    }
  }
  count(counts, outcome, store, facts.orderId);
  return { taken: key, ...(modified !== undefined && { modified }) };
}

function count(counts: SweepCounts, outcome: StoreOutcome | 'refused', store: Store, id: string) {
  const swept = counterOf(Context.current().metricMeter, METRICS.storeSweptOrders);
  if (outcome === 'started') counts.started += 1;
  else if (outcome === 'existing') counts.existing += 1;
  else if (outcome === 'signalled') counts.told += 1;
  else if (outcome === 'refused') counts.refused += 1;
  else return;
  swept.add(1, { outcome: outcome === 'signalled' ? 'told' : outcome });
  if (outcome === 'started' || outcome === 'refused') {
    // The store's order id only: no personal data.
    Context.current().log.info(
      outcome === 'started'
        ? 'store sweep: started an order its webhook did not bring'
        : 'store sweep: an order dropflow cannot take as it is (waits for an edit)',
      { connection: store.id, storeOrderId: id },
    );
  }
}

declare module '../../durable/supplierActivities.js' {
  interface OrdersQueueActivities extends StoreSweepActivities {}
}
