/**
 * The Temporal actions of a phase: every workflow execution of the namespace started since the
 * phase began (orders, sweeps, and whatever else the worker and gateway start), each run's history
 * counted by ./actions.ts.
 */
import type { Client } from '@temporalio/client';

import { addCounts, countActions, totalActions, type ActionCounts } from './actions.js';

export interface PhaseActions {
  /** Workflow executions (runs) counted. */
  executions: number;
  total: number;
  byKind: ActionCounts;
  byWorkflowType: Record<string, number>;
}

/** Histories fetched at once. */
const PARALLEL_FETCHES = 8;

export async function countPhaseActions(client: Client, since: Date): Promise<PhaseActions> {
  const runs: { workflowId: string; runId: string; type: string }[] = [];
  for await (const info of client.workflow.list({
    query: `StartTime >= '${since.toISOString()}'`,
  })) {
    runs.push({ workflowId: info.workflowId, runId: info.runId, type: info.type });
  }
  const byKind: ActionCounts = {};
  const byWorkflowType: Record<string, number> = {};
  for (let i = 0; i < runs.length; i += PARALLEL_FETCHES) {
    const batch = runs.slice(i, i + PARALLEL_FETCHES);
    const histories = await Promise.all(
      batch.map((r) => client.workflow.getHandle(r.workflowId, r.runId).fetchHistory()),
    );
    for (const [j, history] of histories.entries()) {
      const counts = countActions(history.events ?? []);
      addCounts(byKind, counts);
      const type = batch[j]!.type;
      byWorkflowType[type] = (byWorkflowType[type] ?? 0) + totalActions(counts);
    }
  }
  return { executions: runs.length, total: totalActions(byKind), byKind, byWorkflowType };
}
