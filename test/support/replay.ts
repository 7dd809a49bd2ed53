/**
 * Replays every recorded history (test/replay/histories) through today's workflow code, bundled as
 * the orders worker bundles it, and returns each history's replay error, in the order recorded.
 * One replay worker per bundle replays them all: a worker per history loads the bundle's source
 * map again each time, and with hundreds of histories its WebAssembly parser runs out of memory.
 */
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { REPLAY_TRACE_SINKS } from '../../src/temporal/tracing.js';
import { workflowBundleOptions, WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { sharedWorkflowBundle } from './bundles.js';
import { loadHistories } from './histories.js';

export type Recorded = Awaited<ReturnType<typeof loadHistories>>;

/**
 * The recorded histories, and a function that replays them all, with tracing's workflow
 * interceptors bundled or not. The bundle is the run's shared one (test/support/bundles.ts).
 */
export async function recordedHistories(): Promise<{
  recorded: Recorded;
  replayAll: (tracing: boolean) => Promise<unknown[]>;
}> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const recorded = await loadHistories();
  async function replayAll(tracing: boolean): Promise<unknown[]> {
    const workflowBundle = await sharedWorkflowBundle({
      workflowsPath: WORKFLOWS_PATH,
      ...workflowBundleOptions(tracing),
    });
    const results = Worker.runReplayHistories(
      {
        workflowBundle,
        replayName: 'recorded-histories',
        ...(tracing && { sinks: REPLAY_TRACE_SINKS }),
      },
      recorded.map((r) => ({ workflowId: r.recorded.workflowId, history: r.history })),
    );
    const errors: unknown[] = [];
    for await (const result of results) errors.push(result.error);
    return errors;
  }
  return { recorded, replayAll };
}
