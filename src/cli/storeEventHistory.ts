/**
 * The store events an order emitted, as its workflows' histories recorded them: every delivery
 * attempt is an ActivityTaskScheduled event of `deliverStoreEvent` whose input holds the event.
 * Read by `dropflow events replay`, which sends them again with the same ids.
 */
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { temporal } from '@temporalio/proto';

import type { DeliverStoreEventInput } from '../storeEvents/activities.js';
import { orderWorkflowId, OrderNotFoundError } from '../order/contract.js';
import { DISPUTE_WORKFLOW } from '../dispute/contract.js';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import type { StoreEvent } from '../storeEvents/contract.js';
import { literal } from '../temporal/visibility.js';
import { SupplierAccount } from '../temporal/searchAttributes.js';

/** gRPC status NOT_FOUND: what fetching the history of an unknown workflow answers. */
const NOT_FOUND = 5;

export const DELIVER_STORE_EVENT_ACTIVITY = 'deliverStoreEvent';

/**
 * The visibility query of an order's dispute workflows, within the order's account (its
 * SupplierAccount; runs of the default account started before accounts were data have none).
 */
export function disputesQuery(orderNumber: string, account: string = DEFAULT_ACCOUNT): string {
  const prefix =
    account === DEFAULT_ACCOUNT ? `dispute:${orderNumber}:` : `dispute:${account}:${orderNumber}:`;
  const owner =
    account === DEFAULT_ACCOUNT
      ? `(${SupplierAccount.name} IS NULL OR ${SupplierAccount.name} = ${literal(account)})`
      : `${SupplierAccount.name} = ${literal(account)}`;
  return `WorkflowType = ${literal(DISPUTE_WORKFLOW)} AND WorkflowId STARTS_WITH ${literal(prefix)} AND ${owner}`;
}

/** The order's run belongs to another account than the one asked for: nothing is sent. */
export class OrderOfAnotherAccountError extends Error {
  override readonly name = 'OrderOfAnotherAccountError';
  constructor(
    readonly orderNumber: string,
    readonly account: string,
  ) {
    super(`order ${orderNumber} is not an order of account "${account}"; nothing sent`);
  }
}

/**
 * The events of `orderNumber`, each once (a retry schedules the same event again), in the order
 * they were emitted: the order workflow's first, then each dispute's, oldest dispute first.
 * Payloads are decoded with the client's data converter, its codec included (encrypted histories).
 */
export async function recordedStoreEvents(
  client: Client,
  orderNumber: string,
  account: string = DEFAULT_ACCOUNT,
): Promise<StoreEvent[]> {
  let orderHistory: temporal.api.history.v1.IHistory;
  try {
    const handle = client.workflow.getHandle(orderWorkflowId(orderNumber, account));
    // The run's own account, not its id: another account's events never go to this one's store.
    const owner =
      (await handle.describe()).typedSearchAttributes.get(SupplierAccount) ?? DEFAULT_ACCOUNT;
    if (owner !== account) throw new OrderOfAnotherAccountError(orderNumber, account);
    orderHistory = await handle.fetchHistory();
  } catch (err) {
    if (
      err instanceof WorkflowNotFoundError ||
      (isGrpcServiceError(err) && (err.code as number) === NOT_FOUND)
    ) {
      throw new OrderNotFoundError(orderNumber, account);
    }
    throw err;
  }
  const histories = [orderHistory];

  const disputes: { workflowId: string; runId: string; startTime: Date }[] = [];
  for await (const w of client.workflow.list({ query: disputesQuery(orderNumber, account) })) {
    disputes.push({ workflowId: w.workflowId, runId: w.runId, startTime: w.startTime });
  }
  disputes.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  for (const d of disputes) {
    histories.push(await client.workflow.getHandle(d.workflowId, d.runId).fetchHistory());
  }

  const seen = new Set<string>();
  const events: StoreEvent[] = [];
  for (const history of histories) {
    for (const event of await scheduledStoreEvents(client, history)) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      events.push(event);
    }
  }
  return events;
}

async function scheduledStoreEvents(
  client: Client,
  history: temporal.api.history.v1.IHistory,
): Promise<StoreEvent[]> {
  const converter = client.workflow.options.loadedDataConverter;
  const out: StoreEvent[] = [];
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== DELIVER_STORE_EVENT_ACTIVITY) continue;
    const [input] = await decodeArrayFromPayloads(converter, scheduled.input?.payloads);
    if (!isDeliveryInput(input)) {
      throw new Error(
        `event ${String(e.eventId)} of a store-event delivery holds no store event (workflow code and this command disagree)`,
      );
    }
    out.push(input.event);
  }
  return out;
}

function isDeliveryInput(value: unknown): value is DeliverStoreEventInput {
  if (typeof value !== 'object' || value === null || !('event' in value)) return false;
  const event: unknown = value.event;
  return (
    typeof event === 'object' &&
    event !== null &&
    'id' in event &&
    typeof event.id === 'string' &&
    'type' in event &&
    typeof event.type === 'string'
  );
}
