/**
 * A query or an Update that a workflow does not answer: Temporal holds a query until a worker
 * takes it (the server gives up after about 30 s) and an Update until one accepts it (the client
 * waits forever), and refuses an Update while the workflow task is failing. What the caller is
 * told is why, as far as Temporal knows: no worker polls the workflow's task queue, or its
 * workflow task keeps failing.
 */
import {
  isGrpcServiceError,
  ServiceError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import proto from '@temporalio/proto';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/**
 * gRPC status codes that are an answer (bad input, no such workflow, no access). Any other failure
 * of a query or Update to a workflow (a deadline, no recent poller, a busy or restarting server)
 * is a call it did not answer, and the caller is told why as far as Temporal knows.
 */
const ANSWERS = new Set([3, 5, 6, 7, 12, 16]);

/** How long finding out why may take. */
const DIAGNOSIS_MS = 5_000;

/** The call was not answered: a deadline passed, or the workflow task is failing. */
export function isUnanswered(err: unknown): boolean {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  if (!isGrpcServiceError(grpc)) return false;
  return !ANSWERS.has(grpc.code);
}

/** Why `workflowId` does not answer, in a sentence for a person; never throws. */
export async function whyUnanswered(client: Client, workflowId: string): Promise<string> {
  try {
    return await client.withDeadline(Date.now() + DIAGNOSIS_MS, () => diagnose(client, workflowId));
  } catch {
    return `Temporal did not say why (see workflow ${workflowId} in the Temporal UI)`;
  }
}

async function diagnose(client: Client, workflowId: string): Promise<string> {
  const run = await client.workflow.getHandle(workflowId).describe();
  if (run.status.name !== 'RUNNING') return `its workflow is ${run.status.name}`;
  const failed = (run.raw.pendingWorkflowTask?.attempt ?? 1) - 1;
  if (failed > 0) {
    return `its workflow task has failed ${failed} time${failed === 1 ? '' : 's'} in a row: the workers cannot run workflow ${workflowId} (its history in the Temporal UI shows the error)`;
  }
  const queue = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: run.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  if (queue.pollers.length === 0) {
    return `no worker polls its task queue ${run.taskQueue}: start \`dropflow worker\` for it`;
  }
  return `the workers of ${run.taskQueue} did not answer in time (busy, or stuck on workflow ${workflowId})`;
}
