/**
 * The gateway's webhook acknowledgement on loopback: signed ORDER messages for running order
 * workflows, each answered 200 only after its `supplierEvent` signal was accepted by a real
 * Temporal dev server — next to a bare node:http endpoint measured in the same run, so the ratio
 * shows what verification, validation and the durable hand-off cost over a plain round trip.
 *
 * The order workflows have no worker: the signal's acceptance (durable in history) is what the
 * supplier waits for, not its processing.
 */
import { randomBytes } from 'node:crypto';

import { ORDER_WORKFLOW, orderWorkflowId } from 'dropflow/client';
import { startGateway, WEBHOOK_PATH } from 'dropflow/gateway';
import type { Logger } from 'dropflow/log';
import { signWebhook } from 'dropflow/supplier';
import { startDevServer, taskQueues } from 'dropflow/temporal';
import { startBareServer } from './bareServer.js';
import { runLoad, type LoadRequest } from './load.js';
import type { LoadStats } from './stats.js';
import { DEFAULT_CHECKOUT_SETTINGS } from 'dropflow/terms/checkoutSettings';

export interface GatewayBenchOptions {
  concurrency: number;
  /** Requests per measured run (each endpoint). */
  requests: number;
  /** Longest a measured run may take, in ms. */
  maxMs: number;
  /** Unmeasured requests first (connections, JIT, Temporal caches). */
  warmup: number;
  log: Logger;
}

export interface GatewayBenchResult {
  scenario: string;
  concurrency: number;
  requests: number;
  bodyBytes: number;
  temporal: string;
  bare: LoadStats;
  gateway: LoadStats;
  /** gateway ÷ bare (latency: how many times slower; throughput: what fraction). */
  ratio: { p50: number; p99: number; throughput: number };
}

/**
 * An ORDER UPDATE as the supplier pushes it (docs/supplier-api.md §12.5), for one of the bench's
 * orders.
 */
function orderMessage(run: string, orderNumber: string, i: number): string {
  return JSON.stringify({
    messageId: `bench-${run}-${i}`,
    type: 'ORDER',
    messageType: 'UPDATE',
    params: {
      svcOrderId: `SVC-${orderNumber}`,
      orderNumber,
      orderStatus: 'UNSHIPPED',
      subStatus: 'PROCESSING',
      logisticName: 'SvcPacket Ordinary',
      trackNumber: null,
      trackingUrl: null,
      createDate: '2026-01-01 00:00:00',
      updateDate: '2026-01-01 00:00:01',
      payDate: '2026-01-01 00:00:01',
      privateOutboundOrder: false,
      orderItems: [{ vid: 'P0001-V1', quantity: 2, sellPrice: 12.5, lineItemId: `L-${i}` }],
    },
  });
}

export async function runGatewayBench(opts: GatewayBenchOptions): Promise<GatewayBenchResult> {
  const { log } = opts;
  const run = randomBytes(4).toString('hex');
  const openId = `bench-${run}`;
  const queues = taskQueues(`bench-${run}`);
  const closers: (() => Promise<void>)[] = [];
  try {
    // `--output none`: the CLI's banner would otherwise land on our stdout (and break --json).
    const temporal = await startDevServer({ log, ui: false, extraArgs: ['--output', 'none'] });
    closers.push(() => temporal.close());
    const client = temporal.env.client;

    // One order workflow per concurrent sender, so no single history takes every signal.
    const orders = Array.from({ length: opts.concurrency }, (_, k) => `BENCH-${run}-${k}`);
    await Promise.all(
      orders.map((orderNumber) =>
        client.workflow.start(ORDER_WORKFLOW, {
          workflowId: orderWorkflowId(orderNumber),
          taskQueue: queues.orders,
          args: [{}],
        }),
      ),
    );

    const gateway = await startGateway({
      checkout: DEFAULT_CHECKOUT_SETTINGS,
      temporalClient: client,
      queues,
      openId,
      log,
      port: 0,
      host: '127.0.0.1',
    });
    closers.push(() => gateway.close());
    const bare = await startBareServer();
    closers.push(() => bare.close());

    let offset = 0;
    const request = (i: number): LoadRequest => {
      const n = offset + i;
      const body = orderMessage(run, orders[n % orders.length]!, n);
      return {
        body,
        headers: { 'content-type': 'application/json', sign: signWebhook(openId, body) },
      };
    };

    // Sanity: the gateway hands this message to the order's workflow.
    const probe = request(0);
    const res = await fetch(gateway.webhookUrl, {
      method: 'POST',
      headers: probe.headers,
      body: probe.body,
    });
    const answer = (await res.json()) as { outcome?: string };
    if (res.status !== 200 || answer.outcome !== 'delivered') {
      throw new Error(`bench: the gateway answered ${res.status} ${JSON.stringify(answer)}`);
    }
    offset = 1;

    const measure = async (origin: string, requests: number, maxMs: number) => {
      const stats = await runLoad({
        origin,
        path: WEBHOOK_PATH,
        concurrency: opts.concurrency,
        requests,
        maxMs,
        request,
      });
      offset += stats.ok + stats.failed;
      return stats;
    };
    const gatewayOrigin = new URL(gateway.url).origin;
    log.info({ warmup: opts.warmup }, 'bench: warming up');
    await measure(bare.origin, opts.warmup, opts.maxMs);
    await measure(gatewayOrigin, opts.warmup, opts.maxMs);
    log.info({ requests: opts.requests, concurrency: opts.concurrency }, 'bench: measuring');
    const bareStats = await measure(bare.origin, opts.requests, opts.maxMs);
    const gatewayStats = await measure(gatewayOrigin, opts.requests, opts.maxMs);

    return {
      scenario: 'signed ORDER webhook → supplierEvent signal to a running order workflow',
      concurrency: opts.concurrency,
      requests: opts.requests,
      bodyBytes: Buffer.byteLength(request(0).body),
      temporal: temporal.address,
      bare: bareStats,
      gateway: gatewayStats,
      ratio: {
        p50: gatewayStats.p50 / bareStats.p50,
        p99: gatewayStats.p99 / bareStats.p99,
        throughput: gatewayStats.throughput / bareStats.throughput,
      },
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((err: unknown) => {
        log.warn({ err }, 'bench: cleanup failed');
      });
    }
  }
}
