/** Latency and throughput figures of one load run. */
import { quantile } from '../localStack/toCreated.js';

export interface LoadStats {
  /** Requests answered with the expected status. */
  ok: number;
  /** Requests answered otherwise, or not at all. */
  failed: number;
  /** Milliseconds, over the successful requests. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Successful requests per second over the run's wall time. */
  throughput: number;
  durationMs: number;
}

export function summarize(latenciesMs: readonly number[], failed: number, durationMs: number) {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  const stats: LoadStats = {
    ok: sorted.length,
    failed,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
    throughput: durationMs > 0 ? (sorted.length * 1000) / durationMs : 0,
    durationMs,
  };
  return stats;
}
