/**
 * What an operator may do to any workflow (rule 4): terminate it, or reset it to its last
 * workflow task as `temporal workflow reset --type LastWorkflowTask` does. The chaos run does it
 * to the account's singletons mid-run; the runs it ended are not failures of dropflow.
 */
import { randomUUID } from 'node:crypto';

import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';

import { reauthUpdate, type ReauthAnswer } from 'dropflow/contracts/session';

const { EventType } = proto.temporal.api.enums.v1;

/** A run the chaos ended itself (terminated, or replaced by a reset). */
export interface OperatedRun {
  workflowId: string;
  runId: string;
  action: 'terminate' | 'reset';
}

/** The running run of `workflowId`, or undefined when none runs. */
async function runningRun(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING' ? d.runId : undefined;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

export async function terminate(
  client: Client,
  workflowId: string,
): Promise<OperatedRun | undefined> {
  const runId = await runningRun(client, workflowId);
  if (runId === undefined) return undefined;
  await client.workflow.getHandle(workflowId, runId).terminate('chaos: terminated by an operator');
  return { workflowId, runId, action: 'terminate' };
}

export async function resetToLastWorkflowTask(
  client: Client,
  workflowId: string,
): Promise<OperatedRun | undefined> {
  const runId = await runningRun(client, workflowId);
  if (runId === undefined) return undefined;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const last = (history.events ?? [])
    .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
    .at(-1);
  if (last?.eventId == null) return undefined;
  await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId },
    reason: 'chaos: reset by an operator',
    workflowTaskFinishEventId: last.eventId,
    requestId: randomUUID(),
  });
  return { workflowId, runId, action: 'reset' };
}

/** `dropflow account reauth`: the session's `reauth` Update; undefined when no session runs. */
export async function reauth(client: Client, sessionId: string): Promise<ReauthAnswer | undefined> {
  if ((await runningRun(client, sessionId)) === undefined) return undefined;
  return client.workflow.getHandle(sessionId).executeUpdate(reauthUpdate);
}
