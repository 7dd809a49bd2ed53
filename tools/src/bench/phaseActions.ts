/**
 * The Temporal actions of a phase: every workflow execution of the namespace started since the
 * phase began (orders, sweeps, and whatever else the worker and gateway start), each run's history
 * counted by ./actions.ts.
 */
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

import { addCounts, countActions, totalActions, type ActionCounts } from './actions.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface PhaseActions {
  /** Workflow executions (runs) counted. */
  executions: number;
  total: number;
  byKind: ActionCounts;
  byWorkflowType: Record<string, number>;
}

/** Histories fetched at once. */
const PARALLEL_FETCHES = 8;

/** Visits the history of every run the visibility query finds; resolves with how many. */
export async function forEachHistory(
  client: Client,
  query: string,
  visit: (workflowType: string, events: HistoryEvent[]) => void,
): Promise<number> {
  const runs: { workflowId: string; runId: string; type: string }[] = [];
  for await (const info of client.workflow.list({ query })) {
    runs.push({ workflowId: info.workflowId, runId: info.runId, type: info.type });
  }
  for (let i = 0; i < runs.length; i += PARALLEL_FETCHES) {
    const batch = runs.slice(i, i + PARALLEL_FETCHES);
    const histories = await Promise.all(
      batch.map((r) => client.workflow.getHandle(r.workflowId, r.runId).fetchHistory()),
    );
    for (const [j, history] of histories.entries()) visit(batch[j]!.type, history.events ?? []);
  }
  return runs.length;
}

export async function countPhaseActions(client: Client, since: Date): Promise<PhaseActions> {
  const byKind: ActionCounts = {};
  const byWorkflowType: Record<string, number> = {};
  const query = `StartTime >= '${since.toISOString()}'`;
  const executions = await forEachHistory(client, query, (type, events) => {
    const counts = countActions(events);
    addCounts(byKind, counts);
    byWorkflowType[type] = (byWorkflowType[type] ?? 0) + totalActions(counts);
  });
  return { executions, total: totalActions(byKind), byKind, byWorkflowType };
}
