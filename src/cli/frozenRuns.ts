/**
 * Which open runs still need a frozen code set (src/frozen/sets.ts): those of its workflow types
 * that started before its patch shipped. A worker whose release removed a set's code refuses to
 * start while its queue has one, and names them (docs/changing-workflows.md).
 */
import type { Client } from '@temporalio/client';

import { FROZEN_SETS, type FrozenSet } from '../frozen/sets.js';
import { literal } from '../temporal/visibility.js';

/** How many workflow ids a refusal names. */
export const NAMED_RUNS = 10;

export interface RunsBeforePatch {
  set: FrozenSet;
  /** Open runs that may be on the set's code. */
  count: number;
  /** Up to the asked number of them. */
  workflowIds: string[];
}

/** The visibility query of the open runs that may need `set`, on one task queue when given. */
export function runsBeforePatchQuery(set: FrozenSet, taskQueue?: string): string {
  return [
    `ExecutionStatus = 'Running'`,
    `WorkflowType IN (${set.workflowTypes.map(literal).join(', ')})`,
    `StartTime < ${literal(set.shipped)}`,
    ...(taskQueue === undefined ? [] : [`TaskQueue = ${literal(taskQueue)}`]),
  ].join(' AND ');
}

export async function runsBeforePatch(
  client: Client,
  set: FrozenSet,
  opts: { taskQueue?: string; limit: number },
): Promise<RunsBeforePatch> {
  const query = runsBeforePatchQuery(set, opts.taskQueue);
  const { count } = await client.workflow.count(query);
  const workflowIds: string[] = [];
  if (count > 0 && opts.limit > 0) {
    for await (const w of client.workflow.list({ query, pageSize: opts.limit })) {
      workflowIds.push(w.workflowId);
      if (workflowIds.length >= opts.limit) break;
    }
  }
  return { set, count, workflowIds };
}

/**
 * The start check: throws, naming up to `limit` runs per set, when a retired set's runs are open
 * on `taskQueue`. Asks visibility only when a set is retired.
 */
export async function refuseRunsOfRetiredCode(
  client: Client,
  opts: { taskQueue: string; limit?: number; sets?: readonly FrozenSet[] },
): Promise<void> {
  const retired = (opts.sets ?? FROZEN_SETS).filter((s) => s.retired);
  const open: RunsBeforePatch[] = [];
  for (const set of retired) {
    const found = await runsBeforePatch(client, set, {
      taskQueue: opts.taskQueue,
      limit: opts.limit ?? NAMED_RUNS,
    });
    if (found.count > 0) open.push(found);
  }
  if (open.length > 0) throw new RetiredCodeNeededError(open);
}

export class RetiredCodeNeededError extends Error {
  override readonly name = 'RetiredCodeNeededError';
  constructor(readonly open: readonly RunsBeforePatch[]) {
    super(
      `refusing to start: open workflows need frozen code this release removed (docs/changing-workflows.md): ${open
        .map(describe)
        .join('; ')}`,
    );
  }
}

function describe({ set, count, workflowIds }: RunsBeforePatch): string {
  const more = count > workflowIds.length ? `, … ${count - workflowIds.length} more` : '';
  return `${set.id} (${set.patch}): ${count} open ${set.workflowTypes.join('/')} started before ${set.shipped}: ${workflowIds.join(', ')}${more}`;
}
