/**
 * A gauge's read of one workflow's query at a tick of the visibility gauges: undefined when the
 * workflow does not exist (yet). A query that hangs (no worker answers it, as when the workers
 * are stopping) is abandoned after 10 s, or at once when the gauges stop: the server holds an
 * unanswered query for 30 s, and a worker's shutdown must not wait for it.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';

const QUERY_TIMEOUT_MS = 10_000;

export async function probeQuery<R>(
  client: Client,
  workflowId: string,
  query: QueryDefinition<R>,
  stopped?: AbortSignal,
): Promise<R | undefined> {
  const signal = AbortSignal.any([
    AbortSignal.timeout(QUERY_TIMEOUT_MS),
    ...(stopped === undefined ? [] : [stopped]),
  ]);
  const asked = client.withAbortSignal(signal, () =>
    client.workflow.getHandle(workflowId).query(query),
  );
  asked.catch(() => undefined);
  const abandoned = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
  try {
    return await Promise.race([asked, abandoned]);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
