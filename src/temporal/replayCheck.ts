/**
 * The deploy gate of workflow changes: before a worker takes tasks, the histories of workflows
 * still open on its queue replay through the code it is about to run. A non-determinism error
 * means the new code would take a running order down another path than the one it recorded, so
 * the worker refuses to start (docs/changing-workflows.md).
 */
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { Worker, type WorkflowBundle } from '@temporalio/worker';

export interface ReplayCheck {
  /** Workflows whose histories were replayed. */
  checked: number;
  /** Those the code cannot replay, with the error. */
  failures: { workflowId: string; type: string; error: string }[];
}

export async function replayOpenWorkflows(
  client: Client,
  opts: {
    taskQueue: string;
    workflowBundle: WorkflowBundle;
    /** At most this many open workflows, the newest first. */
    limit: number;
    dataConverter?: DataConverter;
  },
): Promise<ReplayCheck> {
  const open: { workflowId: string; runId: string; type: string }[] = [];
  const query = `ExecutionStatus = 'Running' AND TaskQueue = '${opts.taskQueue}'`;
  for await (const w of client.workflow.list({ query })) {
    open.push({ workflowId: w.workflowId, runId: w.runId, type: w.type });
    if (open.length >= opts.limit) break;
  }
  const types = new Map(open.map((w) => [w.workflowId, w.type]));
  const histories = (async function* () {
    for (const w of open) {
      const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      yield { workflowId: w.workflowId, history };
    }
  })();
  const failures: ReplayCheck['failures'] = [];
  const results = Worker.runReplayHistories(
    {
      workflowBundle: opts.workflowBundle,
      replayName: `replay-check-${opts.taskQueue}`,
      ...(opts.dataConverter !== undefined && { dataConverter: opts.dataConverter }),
    },
    histories,
  );
  for await (const r of results) {
    if (r.error !== undefined) {
      failures.push({
        workflowId: r.workflowId,
        type: types.get(r.workflowId) ?? 'unknown',
        error: r.error instanceof Error ? r.error.message : String(r.error),
      });
    }
  }
  return { checked: open.length, failures };
}
