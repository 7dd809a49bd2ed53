/**
 * Temporal Cloud's billable actions, counted from one workflow execution's event history the way
 * Cloud bills them. What a history does not show is not counted: queries, activity heartbeats,
 * rejected updates, and the attempts of an activity still retrying (its ActivityTaskStarted is
 * written only when the attempt that ends it finishes).
 *
 * - a workflow start: 1 (client start, continue-as-new's new run, a child's start); started by a
 *   Schedule: 2 more for the schedule's own action;
 * - signal-with-start of a new workflow: 1 in all (the start; its signal is not counted again);
 * - a child workflow: 1 in the parent for the intent, 1 in the child for its start;
 * - an activity: 1 when scheduled, plus one per retry (ActivityTaskStarted's attempt − 1);
 * - local activities: 1 per workflow task that recorded any, plus the task's non-first attempts;
 * - each timer started, signal received, update accepted, workflow-options update, Nexus operation
 *   scheduled or cancelled, reset;
 * - each search-attribute upsert, except one of TemporalChangeVersion alone (versioning is free).
 */
import proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const EventType = proto.temporal.api.enums.v1.EventType;
const RESET_CAUSE =
  proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

export const ActionKind = {
  workflowStart: 'workflowStart',
  scheduleStart: 'scheduleStart',
  childStart: 'childStart',
  activity: 'activity',
  activityRetry: 'activityRetry',
  localActivity: 'localActivity',
  timer: 'timer',
  signal: 'signal',
  update: 'update',
  searchAttributeUpsert: 'searchAttributeUpsert',
  optionsUpdate: 'optionsUpdate',
  nexus: 'nexus',
  reset: 'reset',
} as const;
export type ActionKind = (typeof ActionKind)[keyof typeof ActionKind];

export type ActionCounts = Partial<Record<ActionKind, number>>;

/** The search attribute a Schedule sets on the workflows it starts. */
const SCHEDULED_BY = 'TemporalScheduledById';
/** Set by patched(); Cloud does not bill its upserts. */
const CHANGE_VERSION = 'TemporalChangeVersion';
/** A Schedule's execution costs this much besides the workflow start. */
const SCHEDULE_ACTIONS = 2;
/** The marker the SDK records for a local activity's result. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export function countActions(events: readonly HistoryEvent[]): ActionCounts {
  const counts: ActionCounts = {};
  const add = (kind: ActionKind, n = 1): void => {
    if (n > 0) counts[kind] = (counts[kind] ?? 0) + n;
  };
  const localActivityTasks = new Set<string>();

  for (const [i, event] of events.entries()) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        add(ActionKind.workflowStart);
        const fields =
          event.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields;
        if (fields?.[SCHEDULED_BY] !== undefined) add(ActionKind.scheduleStart, SCHEDULE_ACTIONS);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        if (!isSignalWithStart(events, i)) add(ActionKind.signal);
        break;
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        add(ActionKind.childStart);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        add(ActionKind.activity);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        add(ActionKind.activityRetry, (event.activityTaskStartedEventAttributes?.attempt ?? 1) - 1);
        break;
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        const marker = event.markerRecordedEventAttributes;
        if (marker?.markerName === LOCAL_ACTIVITY_MARKER) {
          localActivityTasks.add(String(marker.workflowTaskCompletedEventId ?? event.eventId));
        }
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        add(
          ActionKind.localActivity,
          event.workflowTaskCompletedEventAttributes?.meteringMetadata
            ?.nonfirstLocalActivityExecutionAttempts ?? 0,
        );
        break;
      case EventType.EVENT_TYPE_TIMER_STARTED:
        add(ActionKind.timer);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        add(ActionKind.update);
        break;
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields =
          event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ??
          {};
        if (Object.keys(fields).some((key) => key !== CHANGE_VERSION)) {
          add(ActionKind.searchAttributeUpsert);
        }
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
        add(ActionKind.optionsUpdate);
        break;
      case EventType.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED:
      case EventType.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED:
        add(ActionKind.nexus);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
        if (event.workflowTaskFailedEventAttributes?.cause === RESET_CAUSE) add(ActionKind.reset);
        break;
      default:
        break;
    }
  }
  add(ActionKind.localActivity, localActivityTasks.size);
  return counts;
}

/** The signal of a signal-with-start that started the workflow: written right after the start. */
function isSignalWithStart(events: readonly HistoryEvent[], i: number): boolean {
  return i === 1 && events[0]?.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED;
}

export function totalActions(counts: ActionCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export function addCounts(into: ActionCounts, more: ActionCounts): void {
  for (const [kind, n] of Object.entries(more) as [ActionKind, number][]) {
    into[kind] = (into[kind] ?? 0) + n;
  }
}
