/**
 * Activities that talk to Temporal itself, for the tracking sweeper: which order workflows of this
 * account wait for the supplier (visibility), telling them what the supplier said (the
 * `supplierStatus` signal), and what the previous sweep remembered. They run on the orders queue:
 * no supplier call here.
 *
 * Free of personal data by construction: they carry workflow ids, svc order ids, order numbers,
 * stages and the supplier's status and tracking fields, never a name or an address.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';
import {
  ORDER_WORKFLOW,
  supplierStatusSignal,
  TRACKED_STAGES,
  type SupplierNews,
} from '../order/contract.js';
import {
  FulfillmentStage,
  OrderNumber,
  ParcelCodes,
  SvcOrderId,
} from '../temporal/searchAttributes.js';
import { literal } from '../temporal/visibility.js';
import { accountVisibilityFilter } from '../accounts/accountStart.js';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import { TRACKING_SWEEP_WORKFLOW, trackedOrder, type TrackedOrder } from './contract.js';

export interface ListTrackedOrdersInput {
  /** The orders queue of the account: only order workflows on it are listed. */
  ordersQueue: string;
  /** The supplier account whose orders are listed (SupplierAccount); absent: the default. */
  account?: string;
  /** Results per page (server default, typically 1000, when left out). */
  pageSize?: number;
  /** The previous page's `nextPageToken`; the first page when left out. */
  pageToken?: string;
}

export interface TrackedOrdersPage {
  orders: TrackedOrder[];
  /** Base64; absent on the last page. */
  nextPageToken?: string;
}

export interface OrderSignal {
  workflowId: string;
  news: SupplierNews;
}

export interface SignalOutcome {
  signalled: number;
  /** Workflows that had closed (or never existed) by the time of the signal: nothing to tell. */
  closed: number;
}

/** The workflow type of the tracking sweep (its schedule starts it by this name). */
/** Completed sweeps looked at to find the latest. */
const RECENT_SWEEPS = 5;

/** Workflows signalled at once by one `signalOrders` attempt. */
const SIGNAL_CONCURRENCY = 20;

/**
 * Running order workflows on `ordersQueue` in a TRACKED stage: the orders the tracking sweeper
 * asks the supplier about (by their svc order id, or by their order number when they have none).
 */
export function trackedOrdersQuery(ordersQueue: string, account = DEFAULT_ACCOUNT): string {
  return [
    `WorkflowType = ${literal(ORDER_WORKFLOW)}`,
    `ExecutionStatus = 'Running'`,
    `TaskQueue = ${literal(ordersQueue)}`,
    accountVisibilityFilter(account),
    `${FulfillmentStage.name} IN (${TRACKED_STAGES.map(literal).join(', ')})`,
  ].join(' AND ');
}

const tracked = new Set<string>(TRACKED_STAGES);

export function orchestrationActivities(client: Client) {
  return {
    /** One page of the account's tracked orders, from visibility (eventually consistent). */
    async listTrackedOrders(input: ListTrackedOrdersInput): Promise<TrackedOrdersPage> {
      const response = await client.workflowService.listWorkflowExecutions({
        namespace: client.options.namespace,
        query: trackedOrdersQuery(input.ordersQueue, input.account),
        ...(input.pageSize !== undefined && { pageSize: input.pageSize }),
        ...(input.pageToken !== undefined && {
          nextPageToken: Buffer.from(input.pageToken, 'base64'),
        }),
      });
      const orders = response.executions.flatMap((execution): TrackedOrder[] => {
        const workflowId = execution.execution?.workflowId;
        if (workflowId == null) return [];
        const attributes = decodeTypedSearchAttributes(execution.searchAttributes?.indexedFields);
        const order = trackedOrder(workflowId, {
          stage: attributes.get(FulfillmentStage),
          svcOrderId: attributes.get(SvcOrderId),
          orderNumber: attributes.get(OrderNumber),
          parcelCodes: attributes.get(ParcelCodes),
        });
        if (order.svcOrderId === undefined && order.orderNumber === undefined) return [];
        // The query says the same; checked again so a lax visibility store cannot slip one in.
        if (attributes.get(FulfillmentStage) === undefined || !tracked.has(order.stage)) return [];
        return [order];
      });
      const token = response.nextPageToken;
      return {
        orders,
        ...(token.length > 0 && { nextPageToken: Buffer.from(token).toString('base64') }),
      };
    },

    /**
     * The result of the latest tracking sweep on `ordersQueue` that completed (undefined when none
     * did): what the sweeper remembered travels in it to the next sweep. The latest by close time
     * among the few most recent, so a visibility store's order of results does not matter.
     */
    async lastSweepResult(input: { ordersQueue: string }): Promise<unknown> {
      const query = [
        `WorkflowType = ${literal(TRACKING_SWEEP_WORKFLOW)}`,
        `ExecutionStatus = 'Completed'`,
        `TaskQueue = ${literal(input.ordersQueue)}`,
      ].join(' AND ');
      const response = await client.workflowService.listWorkflowExecutions({
        namespace: client.options.namespace,
        query,
        pageSize: RECENT_SWEEPS,
      });
      const closedAt = (e: (typeof response.executions)[number]) =>
        Number(e.closeTime?.seconds ?? 0) * 1_000 + Math.floor((e.closeTime?.nanos ?? 0) / 1e6);
      const latest = [...response.executions].sort((a, b) => closedAt(b) - closedAt(a))[0];
      const { workflowId, runId } = latest?.execution ?? {};
      if (workflowId == null || runId == null) return undefined;
      return client.workflow.getHandle(workflowId, runId).result();
    },

    /**
     * Sends each workflow its `supplierStatus`. A workflow that closed in the meantime is counted,
     * not failed: its order needs nothing more. Any other failure fails the attempt; a retry sends
     * the same messageIds again, which the workflows ignore.
     */
    async signalOrders(signals: OrderSignal[]): Promise<SignalOutcome> {
      const outcome: SignalOutcome = { signalled: 0, closed: 0 };
      for (let i = 0; i < signals.length; i += SIGNAL_CONCURRENCY) {
        await Promise.all(
          signals.slice(i, i + SIGNAL_CONCURRENCY).map(async ({ workflowId, news }) => {
            try {
              await client.workflow.getHandle(workflowId).signal(supplierStatusSignal, news);
              outcome.signalled += 1;
            } catch (err) {
              if (!(err instanceof WorkflowNotFoundError)) throw err;
              outcome.closed += 1;
            }
          }),
        );
      }
      return outcome;
    },
  };
}

export type OrchestrationActivities = ReturnType<typeof orchestrationActivities>;

declare module '../durable/supplierActivities.js' {
  interface OrdersQueueActivities extends OrchestrationActivities {}
}
