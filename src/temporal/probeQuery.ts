/**
 * A gauge's read of one workflow's query at a tick of the visibility gauges: undefined when the
 * workflow does not exist (yet); a query that hangs (no worker running) gives up after 10 s and
 * fails the tick.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';

const QUERY_TIMEOUT_MS = 10_000;

export function probeQuery<R>(
  client: Client,
  workflowId: string,
  query: QueryDefinition<R>,
): Promise<R | undefined> {
  return client
    .withAbortSignal(AbortSignal.timeout(QUERY_TIMEOUT_MS), () =>
      client.workflow.getHandle(workflowId).query(query),
    )
    .catch((err: unknown): R | undefined => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
}
