/**
 * Orders in flight survive every deploy: each recorded history (test/replay/histories) replays
 * through today's workflow code without a non-determinism error. A change that would make a
 * running order take another path than its history recorded fails here, before it ships; see
 * docs/changing-workflows.md for how to make such a change safely.
 */
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_TRACE_SINKS, WORKFLOW_TRACE_INTERCEPTORS } from '../../src/temporal/tracing.js';
import { WORKFLOWS_PATH } from '../../src/worker.js';
import { loadHistories } from '../support/histories.js';
import { silentLogger as quiet } from '../support/logger.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const recorded = await loadHistories();

/**
 * Each history's replay error, in the order recorded, with tracing off and on (its workflow
 * interceptors bundled, docs/tracing.md: they must not change a command). One replay worker per
 * bundle replays them all: a worker per history loads the bundle's source map again each time, and
 * with hundreds of histories its WebAssembly parser runs out of memory.
 */
const errors: unknown[] = [];
const tracedErrors: unknown[] = [];

async function replayAll(interceptors: string[], into: unknown[]): Promise<void> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: interceptors,
    logger: quiet,
  });
  const results = Worker.runReplayHistories(
    {
      workflowBundle,
      replayName: 'recorded-histories',
      ...(interceptors.length > 0 && { sinks: REPLAY_TRACE_SINKS }),
    },
    recorded.map((r) => ({ workflowId: r.recorded.workflowId, history: r.history })),
  );
  for await (const result of results) into.push(result.error);
}

beforeAll(async () => {
  await replayAll([], errors);
  await replayAll([WORKFLOW_TRACE_INTERCEPTORS], tracedErrors);
}, 2_400_000);

describe('recorded histories replay through the current workflow code', () => {
  it('has histories of every workflow type', () => {
    const types = new Set(recorded.map((r) => r.recorded.workflowType));
    expect([...types].sort()).toEqual(
      [
        'accountCheckout',
        'catalogueEvents',
        'disputeOrder',
        'fulfillOrder',
        'supplierSession',
        'trackingSweep',
        'trackingSweeper',
        'webhookInbox',
      ].sort(),
    );
  });

  it('replayed every history', () => {
    expect(errors).toHaveLength(recorded.length);
  });

  it.each(recorded.map((r, i) => [r.file, r, i] as const))('%s', (_file, r, i) => {
    expect(errors[i], `${r.recorded.scenario}: ${String(errors[i])}`).toBeUndefined();
  });
});

describe('and with tracing on', () => {
  it('replayed every history', () => {
    expect(tracedErrors).toHaveLength(recorded.length);
  });

  it.each(recorded.map((r, i) => [r.file, r, i] as const))('%s', (_file, r, i) => {
    expect(tracedErrors[i], `${r.recorded.scenario}: ${String(tracedErrors[i])}`).toBeUndefined();
  });
});
