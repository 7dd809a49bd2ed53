/**
 * A closed-loop load generator: `concurrency` workers on keep-alive connections each send their
 * next request as soon as the previous one was answered, until `requests` were sent or `maxMs`
 * passed. Latency = request start to the end of the response body.
 */
import { Pool } from 'undici';

import { summarize, type LoadStats } from './stats.js';

export interface LoadRequest {
  body: string;
  headers: Record<string, string>;
}

export interface LoadOptions {
  /** `http://127.0.0.1:port` */
  origin: string;
  path: string;
  concurrency: number;
  requests: number;
  maxMs: number;
  /** The i-th request (0-based). */
  request: (i: number) => LoadRequest;
  /** The status that counts as success (default 200). */
  expectStatus?: number;
}

export async function runLoad(opts: LoadOptions): Promise<LoadStats> {
  const pool = new Pool(opts.origin, {
    connections: opts.concurrency,
    pipelining: 1,
    keepAliveTimeout: 10_000,
  });
  const expect = opts.expectStatus ?? 200;
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const until = started + opts.maxMs;

  const worker = async () => {
    for (;;) {
      const i = next;
      if (i >= opts.requests || performance.now() >= until) return;
      next += 1;
      const { body, headers } = opts.request(i);
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: 'POST', path: opts.path, headers, body });
        await res.body.dump();
        if (res.statusCode === expect) latencies.push(performance.now() - t0);
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    return summarize(latencies, failed, performance.now() - started);
  } finally {
    await pool.close();
  }
}
