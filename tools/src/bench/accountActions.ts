/**
 * The Temporal actions and timeouts of one account's workflows within a time window: every run
 * whose SupplierAccount is the account and that was running at some point of the window (its
 * orders, and its coordinator, session, sweeper …), each history's events of the window counted
 * the way `bench orders` counts a phase (./actions.ts).
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

import { SupplierAccount } from 'dropflow/temporal';
import { countActions, totalActions } from './actions.js';
import { forEachHistory } from './phaseActions.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const EventType = proto.temporal.api.enums.v1.EventType;

/** What ran out of time: an activity, a workflow task, a child, a whole run. */
const TIMEOUTS = new Set([
  EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
]);

const TimeoutType = proto.temporal.api.enums.v1.TimeoutType;

/**
 * A timeout that cost work or time. A workflow task's schedule-to-start timeout happens only on a
 * worker's sticky queue: the server hands the task to the normal queue at once and nothing is
 * retried, so it is a busy worker's sign, not a timeout of the order.
 */
function lostTime(e: HistoryEvent): boolean {
  if (e.eventType == null || !TIMEOUTS.has(e.eventType)) return false;
  return !(
    e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT &&
    e.workflowTaskTimedOutEventAttributes?.timeoutType ===
      TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
  );
}

export interface AccountActions {
  executions: number;
  actions: number;
  timeouts: number;
}

export async function countAccountActions(
  client: Client,
  account: string,
  window: { from: number; to: number },
): Promise<AccountActions> {
  const since = new Date(window.from).toISOString();
  const query =
    `${SupplierAccount.name} = '${account}' AND ` +
    `(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`;
  let actions = 0;
  let timeouts = 0;
  const executions = await forEachHistory(client, query, (_, all) => {
    const events = all.filter((e) => within(e, window));
    actions += totalActions(countActions(events));
    timeouts += events.filter(lostTime).length;
  });
  return { executions, actions, timeouts };
}

function within(event: HistoryEvent, window: { from: number; to: number }): boolean {
  const at = eventTimeMs(event);
  return at !== undefined && at >= window.from && at <= window.to;
}

export function eventTimeMs(event: HistoryEvent): number | undefined {
  const t = event.eventTime;
  if (t == null) return undefined;
  const s = t.seconds;
  const seconds = s == null ? 0 : typeof s === 'number' ? s : s.toNumber();
  return seconds * 1_000 + Math.floor((t.nanos ?? 0) / 1_000_000);
}
