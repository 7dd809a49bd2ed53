/**
 * Counting Temporal Cloud's billable actions from hand-built histories: one per activity attempt
 * (not per schedule), schedules and signal-with-start as Cloud bills them, local activities per
 * workflow task, versioning upserts free.
 */
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';

import { ActionKind, countActions, totalActions } from '../../tools/src/bench/actions.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const T = proto.temporal.api.enums.v1.EventType;
const payload = (text: string) => ({ data: Buffer.from(JSON.stringify(text)) });

/** An event as JSON; `history` turns the list into decoded events as fetchHistory gives them. */
type EventJson = { eventType: proto.temporal.api.enums.v1.EventType } & Record<string, unknown>;

function ev(eventType: proto.temporal.api.enums.v1.EventType, attrs: Record<string, unknown> = {}) {
  return { eventType, ...attrs } as EventJson;
}
/** Events numbered from 1, as Temporal numbers them. */
function history(...events: EventJson[]): HistoryEvent[] {
  return events.map((e, i) =>
    proto.temporal.api.history.v1.HistoryEvent.fromObject({ ...e, eventId: i + 1 }),
  );
}

const started = (searchAttributes?: Record<string, { data: Buffer }>) =>
  ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, {
    workflowExecutionStartedEventAttributes: {
      ...(searchAttributes !== undefined && {
        searchAttributes: { indexedFields: searchAttributes },
      }),
    },
  });
const taskScheduled = () => ev(T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
const taskCompleted = (nonfirstLocalActivityExecutionAttempts = 0) =>
  ev(T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, {
    workflowTaskCompletedEventAttributes: {
      meteringMetadata: { nonfirstLocalActivityExecutionAttempts },
    },
  });
const activityScheduled = () => ev(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
const activityStarted = (attempt: number) =>
  ev(T.EVENT_TYPE_ACTIVITY_TASK_STARTED, { activityTaskStartedEventAttributes: { attempt } });
const activityCompleted = () => ev(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
const localActivity = (workflowTaskCompletedEventId: number) =>
  ev(T.EVENT_TYPE_MARKER_RECORDED, {
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      workflowTaskCompletedEventId,
    },
  });
const upsert = (...keys: string[]) =>
  ev(T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
    upsertWorkflowSearchAttributesEventAttributes: {
      searchAttributes: { indexedFields: Object.fromEntries(keys.map((k) => [k, payload(k)])) },
    },
  });

describe('countActions', () => {
  it('counts an activity retried until its 3rd attempt as 3, and one that worked at once as 1', () => {
    const counts = countActions(
      history(
        started(),
        taskScheduled(),
        taskCompleted(),
        activityScheduled(),
        activityStarted(3),
        activityCompleted(),
        activityScheduled(),
        activityStarted(1),
        activityCompleted(),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
      ),
    );
    expect(counts).toEqual({
      [ActionKind.workflowStart]: 1,
      [ActionKind.activity]: 2,
      [ActionKind.activityRetry]: 2,
    });
    expect(totalActions(counts)).toBe(5);
  });

  it('counts an activity scheduled but never started once', () => {
    const counts = countActions(history(started(), taskScheduled(), activityScheduled()));
    expect(counts[ActionKind.activity]).toBe(1);
    expect(counts[ActionKind.activityRetry]).toBeUndefined();
  });

  it('counts timers, signals, accepted updates and upserts; a TemporalChangeVersion upsert is free', () => {
    const counts = countActions(
      history(
        started(),
        taskScheduled(),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
        ev(T.EVENT_TYPE_TIMER_STARTED),
        ev(T.EVENT_TYPE_TIMER_FIRED),
        ev(T.EVENT_TYPE_TIMER_STARTED),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED),
        upsert('FulfillmentStage', 'NeedsAttention'),
        upsert('TemporalChangeVersion'),
        ev(T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED),
      ),
    );
    expect(counts).toEqual({
      [ActionKind.workflowStart]: 1,
      [ActionKind.signal]: 1,
      [ActionKind.timer]: 2,
      [ActionKind.update]: 1,
      [ActionKind.searchAttributeUpsert]: 1,
    });
  });

  it('bills a scheduled workflow 3 (schedule and start), a signal-with-start 1 in all', () => {
    const scheduled = countActions(
      history(started({ TemporalScheduledById: payload('tracking-sweep:x') }), taskScheduled()),
    );
    expect(totalActions(scheduled)).toBe(3);
    expect(scheduled[ActionKind.scheduleStart]).toBe(2);

    const signalWithStart = countActions(
      history(started(), ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), taskScheduled()),
    );
    expect(signalWithStart).toEqual({ [ActionKind.workflowStart]: 1 });
  });

  it('counts local activities once per workflow task, plus their non-first attempts', () => {
    const events = history(
      started(),
      taskScheduled(),
      ev(T.EVENT_TYPE_WORKFLOW_TASK_STARTED),
      taskCompleted(2),
      localActivity(4),
      localActivity(4),
      taskScheduled(),
      ev(T.EVENT_TYPE_WORKFLOW_TASK_STARTED),
      taskCompleted(),
      localActivity(9),
    );
    expect(countActions(events)[ActionKind.localActivity]).toBe(2 + 2);
  });

  it('counts a child as its intent in the parent; continue-as-new as the next run’s start', () => {
    const parent = countActions(
      history(
        started(),
        taskScheduled(),
        ev(T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
        ev(T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW),
      ),
    );
    expect(parent).toEqual({ [ActionKind.workflowStart]: 1, [ActionKind.childStart]: 1 });
  });
});
