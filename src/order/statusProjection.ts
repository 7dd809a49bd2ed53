/**
 * The order as others see it, written by this class alone: the `status` query's snapshot (stage,
 * timeline, reasons, what it waits for, the facts the supplier gave), the search attributes that
 * mirror it and the UI's current details. `Order` tells it what happened; it decides nothing.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  metricMeter,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { Stage, WAITING_STAGES, type OrderStatus, type TimelineEntry } from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import type { Reason } from '../supplier/interception.js';
import { flowLabel, type OrderInput } from './orderInput.js';
import {
  FulfillmentFlow,
  FulfillmentStage,
  NeedsAttention,
  OrderNumber,
  StoreEventsBehind,
} from '../temporal/searchAttributes.js';
import type { StoreEventsView } from '../storeEvents/contract.js';
import { counterOf, METRICS } from '../telemetry/metrics.js';
import { workflowAccount } from '../durable/account.js';
import { renderDetails } from './details.js';
import type { OutcomeInDoubt } from '../durable/stepHost.js';

/** What the supplier and the store told of the order, as the status shows it. */
type Facts = Pick<
  OrderStatus,
  | 'svcOrderId'
  | 'atSupplier'
  | 'shipmentOrderId'
  | 'payId'
  | 'logisticName'
  | 'amounts'
  | 'margin'
  | 'trackNumber'
  | 'trackingUrl'
  | 'trackingEvents'
  | 'proofOfDelivery'
  | 'dispute'
  | 'parcels'
  | 'storeEvents'
  | 'deadlines'
>;
export type OrderFacts = { [K in keyof Facts]?: Facts[K] | undefined };

export class StatusProjection {
  readonly status: OrderStatus;
  /** The last stage in which the order was at work, not waiting: where a finished wait returns. */
  private workingStage: Stage = Stage.RECEIVED;
  /** Lean mode: search-attribute values as last written, and those to write at the task's end. */
  private readonly written = new Map<string, unknown>();
  private readonly toWrite = new Map<string, SearchAttributeUpdatePair>();

  /**
   * `lean`: search attributes are upserted once per workflow task and only when a value changes,
   * starting from those the order was started with (each upsert is a billed action).
   * `personAsked`: whether a person is asked for something outside a waiting stage.
   * `entering`: told first whenever a stage is entered (the store hears a new stop).
   */
  constructor(
    input: OrderInput,
    private readonly lean: boolean,
    private readonly personAsked: () => boolean,
    private readonly entering: () => void,
  ) {
    if (this.lean) {
      const started = workflowInfo().typedSearchAttributes;
      for (const key of [FulfillmentStage, OrderNumber, FulfillmentFlow, NeedsAttention]) {
        const value = started.get(key);
        if (value !== undefined) this.written.set(key.name, value);
      }
    }
    this.status = {
      orderNumber: input.order.orderNumber,
      ...(input.store !== undefined && {
        store: {
          connection: input.store.connection,
          platform: input.store.platform,
          orderId: input.store.orderId,
          orderName: input.store.orderName,
        },
      }),
      flow: flowLabel(input.fulfillment),
      stage: Stage.RECEIVED,
      atSupplier: false,
      timeline: [],
    };
  }

  get stage(): Stage {
    return this.status.stage;
  }

  /** Whether the order waits for a person: visibility's NeedsAttention. */
  get needsPerson(): boolean {
    return WAITING_STAGES.includes(this.stage) || this.personAsked();
  }

  /** Moves to a stage: timeline, search attributes and the UI's current details follow. */
  enter(stage: Stage, note?: string): void {
    this.entering();
    if (!WAITING_STAGES.includes(stage)) {
      // Reasons and errors describe a stop; moving on clears them.
      delete this.status.interception;
      delete this.status.error;
      this.workingStage = stage;
    }
    delete this.status.waitingFor;
    this.status.stage = stage;
    const entry: TimelineEntry = {
      stage,
      at: new Date().toISOString(),
      ...(note !== undefined && { note }),
    };
    this.status.timeline.push(entry);
    // Skipped while replaying: a worker catching up on a history does not count its stages again.
    counterOf(metricMeter, METRICS.orderStageEntered).add(1, { stage, account: workflowAccount() });
    this.upsert([
      { key: FulfillmentStage, value: stage },
      { key: OrderNumber, value: this.status.orderNumber },
      { key: FulfillmentFlow, value: this.status.flow },
      { key: NeedsAttention, value: this.needsPerson },
    ]);
    this.show();
  }

  /** A finished wait returns to this stage, whichever stage the order waited in. */
  returnsTo(stage: Stage): void {
    this.workingStage = stage;
  }

  /** Stages passed through elsewhere (a checkout batch), on the timeline only. */
  passedThrough(stages: readonly Stage[], note: string): void {
    const at = new Date().toISOString();
    for (const stage of stages) this.status.timeline.push({ stage, at, note });
  }

  upsert(pairs: SearchAttributeUpdatePair[]): void {
    if (!this.lean) {
      upsertSearchAttributes(pairs);
      return;
    }
    for (const pair of pairs) this.toWrite.set(pair.key.name, pair);
  }

  /**
   * Lean mode: writes the search attributes that changed since the last write, as one upsert.
   * Called where the order starts to wait (a person, the supplier's news, a busy supplier) and at
   * the end, so stages passed through between waits cost no action of their own.
   */
  flush(): void {
    const changed = [...this.toWrite.values()].filter(
      (p) => this.written.get(p.key.name) !== p.value,
    );
    this.toWrite.clear();
    if (changed.length === 0) return;
    for (const p of changed) this.written.set(p.key.name, p.value);
    upsertSearchAttributes(changed);
  }

  /** Says what the order waits for (status and UI), written with the next flush. */
  waitingFor(what: string): void {
    this.status.waitingFor = what;
    this.show();
  }

  /** Says what the order waits for (status and UI); what it shows is written now. */
  waitFor(what: string): void {
    this.waitingFor(what);
    this.flush();
  }

  /** A wait ended with the thing it waited for: the order is at work again where it was. */
  waitEnded(note?: string): void {
    if (this.stage !== this.workingStage) this.enter(this.workingStage, note);
    else this.doneWaiting();
  }

  doneWaiting(): void {
    if (this.status.waitingFor === undefined) return;
    delete this.status.waitingFor;
    this.show();
  }

  /** Records a note on the timeline without changing stage. */
  note(note: string): void {
    this.status.timeline.push({ stage: this.stage, at: new Date().toISOString(), note });
    this.show();
  }

  /** A step stopped: why, for the operator (cleared when the order moves on). */
  failed(info: FailureInfo): void {
    this.status.error = info;
    this.show();
  }

  intercepted(step: string, reasons: Reason[]): void {
    this.status.interception = { step, reasons };
    this.show();
  }

  /** A call that may have acted lost its answer (the first one counts). */
  outcomeUnknown(step: string): void {
    this.status.outcomeUnknown ??= { step, since: new Date().toISOString() };
    this.show();
  }

  outcomeSettled(): void {
    delete this.status.outcomeUnknown;
    this.show();
  }

  get unknownOutcome(): OutcomeInDoubt | undefined {
    return this.status.outcomeUnknown;
  }

  /** Facts learnt; `undefined` leaves a fact as it was. Shown with the next change or `show`. */
  record(facts: OrderFacts): void {
    for (const key of Object.keys(facts) as (keyof OrderFacts)[]) {
      const value = facts[key];
      if (value !== undefined) Object.assign(this.status, { [key]: value });
    }
  }

  /** The order goes on in another flow (a store order whose products are all connected). */
  flowChanged(flow: string): void {
    this.status.flow = flow;
    this.upsert([{ key: FulfillmentFlow, value: flow }]);
  }

  /** The supplier deleted its order so that it can be created again as amended: it has none. */
  deletedToAmend(svcOrderId: string): void {
    delete this.status.svcOrderId;
    delete this.status.amounts;
    this.status.atSupplier = false;
    this.enter(Stage.RECEIVED, `deleted ${svcOrderId} at the supplier to create it again amended`);
  }

  show(): void {
    setCurrentDetails(renderDetails(this.status));
  }

  storeEventsChanged(view: StoreEventsView): void {
    this.record({ storeEvents: view });
    this.show();
  }

  storeEventsBehind(behind: boolean): void {
    this.upsert([{ key: StoreEventsBehind, value: behind }]);
    this.flush();
  }
}
