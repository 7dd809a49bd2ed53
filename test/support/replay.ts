/**
 * Replays every recorded history (test/replay/histories) through today's workflow code and
 * returns each history's replay error, in the order recorded. One replay worker per bundle
 * replays them all: a worker per history loads the bundle's source map again each time, and with
 * hundreds of histories its WebAssembly parser runs out of memory.
 */
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { REPLAY_TRACE_SINKS } from '../../src/temporal/tracing.js';
import { WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { loadHistories } from './histories.js';
import { silentLogger as quiet } from './logger.js';

export type Recorded = Awaited<ReturnType<typeof loadHistories>>;

/** The recorded histories, and a function that replays them all with `interceptors` bundled. */
export async function recordedHistories(): Promise<{
  recorded: Recorded;
  replayAll: (interceptors: string[]) => Promise<unknown[]>;
}> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const recorded = await loadHistories();
  async function replayAll(interceptors: string[]): Promise<unknown[]> {
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
    const errors: unknown[] = [];
    for await (const result of results) errors.push(result.error);
    return errors;
  }
  return { recorded, replayAll };
}
