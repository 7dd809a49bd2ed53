/**
 * The typed client of order workflows (docs/architecture.md §5.3), used by
 * `dropflow submit|status|list|…`, the gateway and any Node upstream system: submit an order
 * (idempotently), read its status, list orders by stage, and send the operator actions (Updates).
 *
 * Idempotency: the workflow id is `order:<orderNumber>` and starts use REJECT_DUPLICATE, so one
 * orderNumber is one workflow for the lifetime of the namespace's retention. A second submit with
 * the same (parsed) input answers `existing`; with a different input it is a conflict. The input
 * is compared through a memo `inputHash` (sha256 of its canonical JSON), so the comparison does
 * not depend on the key order or on defaults written out or left implicit. The memo keeps the
 * submitted input's hash when the order is amended: the original body stays `existing`.
 *
 * One exception frees an orderNumber: an order that ended CANCELLED before the supplier ever had
 * it (its result says so) may be submitted again with a different input, which starts a new run
 * under the same workflow id.
 */
import { createHash } from 'node:crypto';

import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
  type WorkflowUpdateHandle,
} from '@temporalio/client';

import { DEFAULT_ACCOUNT, type AccountDirectory } from '../accounts/contract.js';
import { formatIssues, type FieldIssue } from '../supplier/errors.js';
import { accountStartOptions, accountVisibilityFilter } from '../accounts/accountStart.js';
import {
  FulfillmentFlow,
  FulfillmentStage,
  NeedsAttention,
  OrderNumber,
  SupplierAccount,
  SvcOrderId,
  ParcelCodes,
  SlaBreached,
} from '../temporal/searchAttributes.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import {
  AMEND_INVALID,
  amendUpdate,
  approvePaymentUpdate,
  cancelUpdate,
  changeLogisticsUpdate,
  ORDER_WORKFLOW,
  OrderNotFoundError,
  orderWorkflowId,
  provideWaybillUpdate,
  resumeUpdate,
  Stage,
  statusQuery,
  type ActionResult,
  type AmendInput,
  type ApprovePaymentInput,
  type CancelInput,
  type ChangeLogisticsInput,
  type OrderStatus,
  type ResumeInput,
  type WaybillInput,
} from '../order/contract.js';
import { withoutActionPrefix } from '../supplier/failureDetails.js';
import { isUnanswered, whyUnanswered } from './unanswered.js';
import { startSummary } from '../order/orderGlance.js';
import { changesIssues, flowLabel, parseOrder, type OrderInput } from '../order/orderInput.js';
import { SLA_MEMO, type SlaDurations } from '../terms/sla.js';
import { CHECKOUT_BOUND_MEMO } from '../checkout/contract.js';

/** The visibility clause of orders that missed a deadline (the docs' saved view is the same). */
export const LATE_ORDERS = `${SlaBreached.name} IS NOT NULL`;
import type { MarginRule } from '../terms/margin.js';

/** The memo key holding the sha256 of the order's canonical JSON. */
export const INPUT_HASH_MEMO = 'inputHash';

/** The rule an order's `account` breaks when the registry does not have it. */
export const NO_SUCH_ACCOUNT = 'no such supplier account';

// ---- errors ----------------------------------------------------------------------------------

/** The order breaks a rule; nothing was started. The gateway answers 400 with `issues`. */
export class OrderInvalidError extends Error {
  override readonly name = 'OrderInvalidError';
  constructor(readonly issues: readonly FieldIssue[]) {
    super(`invalid order: ${formatIssues(issues)}`);
  }
}

/** The orderNumber is taken by an order with a different input. The gateway answers 409. */
export class OrderConflictError extends Error {
  override readonly name = 'OrderConflictError';
  constructor(
    readonly orderNumber: string,
    readonly workflowId: string,
  ) {
    super(
      `order ${orderNumber} already exists (workflow ${workflowId}) with a different input; ` +
        'an orderNumber names one order: send the same input again, or use a new orderNumber',
    );
  }
}

/** The workflow refused an operator action; `reason` is the workflow's own explanation. */
export class OrderActionRejectedError extends Error {
  override readonly name = 'OrderActionRejectedError';
  constructor(
    readonly orderNumber: string,
    readonly action: string,
    readonly reason: string,
  ) {
    // The workflow's refusals start with `<action> refused: ` and name the order: said once.
    const own = withoutActionPrefix(action, reason) !== reason;
    super(own ? reason : `${action} refused for order ${orderNumber}: ${reason}`);
  }
}

/**
 * The order's workflow did not answer a query or an action in time: no worker runs it, or its
 * workflow task keeps failing. `reason` says which, as far as Temporal tells. An action stays
 * with Temporal: the workflow may still carry it out once it runs again.
 */
export class OrderUnansweredError extends Error {
  override readonly name = 'OrderUnansweredError';
  constructor(
    readonly orderNumber: string,
    readonly asked: { query: string } | { action: string },
    readonly reason: string,
  ) {
    super(
      'query' in asked
        ? `no answer from order ${orderNumber} to the ${asked.query} query: ${reason}`
        : `no answer from order ${orderNumber} to the ${asked.action} action: ${reason}; ` +
            `the ${asked.action} stays with Temporal and may still be carried out once the workflow runs: check the order's status before sending it again`,
    );
  }
}

/**
 * The workflow accepted an action but had not carried it out when the caller stopped waiting: it
 * goes on; the order's status tells how it ends.
 */
export class OrderActionUnderWayError extends Error {
  override readonly name = 'OrderActionUnderWayError';
  constructor(
    readonly orderNumber: string,
    readonly action: string,
    readonly seconds: number,
  ) {
    super(
      `${action} of order ${orderNumber} accepted and still under way after ${seconds} s; its status tells how it ends`,
    );
  }
}

// ---- hashing ---------------------------------------------------------------------------------

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** JSON with object keys sorted at every level and undefined members left out. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** sha256 (hex) of the input's canonical JSON: equal for equal orders. */
export function inputHash(input: OrderInput): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

// ---- the client ------------------------------------------------------------------------------

export interface SubmitResult {
  /** `started`: this call started the workflow; `existing`: the same order was already there. */
  outcome: 'started' | 'existing';
  workflowId: string;
  orderNumber: string;
}

export interface SubmitOptions {
  /**
   * Whether an orderNumber whose order ended CANCELLED before the supplier had it may start again
   * (default). A store order may not: its store cancelled it, and a late webhook must not undo that.
   */
  reuse?: boolean;
}

export interface ListOptions {
  stage?: Stage;
  /** Only orders that missed a deadline (SlaBreached; docs/delivery-promises.md). */
  late?: boolean;
  /** Only the orders of this supplier account (default: every account's). */
  account?: string;
  /** At most this many orders, newest first (default 100). */
  limit?: number;
}

/** One order as visibility (the search attributes) sees it. */
export interface OrderSummary {
  orderNumber: string;
  workflowId: string;
  stage: string | undefined;
  flow: string | undefined;
  svcOrderId: string | undefined;
  /** Its supplier account (runs from before accounts were data: `default`). */
  account: string;
  needsAttention: boolean;
  /** The deadlines the order missed (SlaBreached), when it missed any. */
  late?: string[];
  /** A split order's parcels still on their way (ParcelCodes), when it has any. */
  parcels?: string[];
  /** The workflow execution's status: Running, Completed, Failed, … */
  executionStatus: string;
  startedAt: string;
}

const STAGES: ReadonlySet<string> = new Set(Object.values(Stage));

/** Actions are sent once the workflow accepted them, then their result is awaited. */
const ACCEPTED = { waitForStage: WorkflowUpdateStage.ACCEPTED } as const;

export function isStage(value: string): value is Stage {
  return STAGES.has(value);
}

type FulfillOrderWorkflow = (input: OrderInput) => Promise<OrderStatus>;

/** The account an order starts with, as the directory knows it. */
interface StartAccount {
  id: string;
  tier: number | undefined;
  sla: SlaDurations | undefined;
  margin: MarginRule | undefined;
}

export interface OrderClientOptions {
  /**
   * Stop waiting for a query or an action the order's workflow has not answered within this long
   * (OrderUnansweredError, OrderActionUnderWayError). Left out: as long as Temporal waits — for an
   * action that no worker takes, forever.
   */
  answerWithinMs?: number;
  /**
   * The supplier accounts an order may name (`account` in its input): one the directory does not
   * have is refused and nothing starts. The default account always exists. Left out: the default
   * account only.
   */
  accounts?: AccountDirectory;
  /** The account whose orders the by-number calls (status, actions) address; default `default`. */
  account?: string;
  /** The store's margin rule (MARGIN_RULE) for orders that name none (docs/margin-guard.md). */
  marginDefault?: MarginRule | undefined;
  /**
   * How long a started order waits on its checkout coordinator before asking where it holds it
   * (checkoutOrderBoundMs of the deployment's settings); the order keeps it. Left out: 5 minutes.
   */
  checkoutBoundMs?: number | undefined;
}

export class OrderClient {
  constructor(
    readonly client: Client,
    readonly queues: TaskQueues,
    readonly options: OrderClientOptions = {},
  ) {}

  /** The account the by-number calls address. */
  get account(): string {
    return this.options.account ?? DEFAULT_ACCOUNT;
  }

  /** This client, addressing the orders of `account` by number. */
  forAccount(account: string): OrderClient {
    return new OrderClient(this.client, this.queues, { ...this.options, account });
  }

  /** The workflow id of order `orderNumber` of this client's account: what by-number calls address. */
  workflowIdOf(orderNumber: string): string {
    return orderWorkflowId(orderNumber, this.account);
  }

  /**
   * The account the order's run was started for (its SupplierAccount; none: `default`), read from
   * the run itself rather than trusted from its id. Throws OrderNotFoundError.
   */
  async accountOf(orderNumber: string): Promise<string> {
    return this.withHandle(orderNumber, async (handle) => {
      const run = await handle.describe();
      return run.typedSearchAttributes.get(SupplierAccount) ?? DEFAULT_ACCOUNT;
    });
  }

  /** The account an order names, refused when the directory does not have it. */
  private accountFor(input: OrderInput): StartAccount {
    const id = input.account ?? DEFAULT_ACCOUNT;
    const known = this.options.accounts?.get(id);
    // The default account always exists: the deployment's own (SUPPLIER_API_KEY or the sandbox).
    if (known === undefined && id !== DEFAULT_ACCOUNT) {
      throw new OrderInvalidError([{ field: 'account', rule: NO_SUCH_ACCOUNT }]);
    }
    return { id, tier: known?.tier, sla: known?.sla, margin: known?.margin };
  }

  /**
   * Validates `raw` (the createOrderV3 body plus `fulfillment`) and starts its workflow, once.
   * Throws OrderInvalidError (field issues) or OrderConflictError.
   */
  async submit(raw: unknown, { reuse = true }: SubmitOptions = {}): Promise<SubmitResult> {
    const named = parseOrder(raw);
    if (!named.ok) throw new OrderInvalidError(named.issues);
    const account = this.accountFor(named.input);
    // The store's rule is its account's (the registry; MARGIN_RULE for the default account).
    const marginDefault = account.margin ?? this.options.marginDefault;
    const parsed = marginDefault === undefined ? named : parseOrder(raw, { marginDefault });
    if (!parsed.ok) throw new OrderInvalidError(parsed.issues);
    const input = parsed.input;
    const orderNumber = input.order.orderNumber;
    const workflowId = orderWorkflowId(orderNumber, account.id);
    const hash = inputHash(input);
    if (await this.start(input, account, hash, WorkflowIdReusePolicy.REJECT_DUPLICATE)) {
      return { outcome: 'started', workflowId, orderNumber };
    }
    const existing = await this.client.workflow.getHandle(workflowId).describe();
    if (sameOrder(existing, hash)) return { outcome: 'existing', workflowId, orderNumber };
    if (reuse && (await this.neverAtSupplier(existing))) {
      // Only this start may reuse the id; a concurrent submit that won is judged as usual.
      if (await this.start(input, account, hash, WorkflowIdReusePolicy.ALLOW_DUPLICATE)) {
        return { outcome: 'started', workflowId, orderNumber };
      }
      const winner = await this.client.workflow.getHandle(workflowId).describe();
      if (sameOrder(winner, hash)) return { outcome: 'existing', workflowId, orderNumber };
    }
    throw new OrderConflictError(orderNumber, workflowId);
  }

  /** Starts the order's workflow; false when its id is taken as the policy sees it. */
  private async start(
    input: OrderInput,
    account: StartAccount,
    hash: string,
    workflowIdReusePolicy: WorkflowIdReusePolicy,
  ): Promise<boolean> {
    const orderNumber = input.order.orderNumber;
    const started = accountStartOptions(account);
    try {
      await this.client.workflow.start<FulfillOrderWorkflow>(ORDER_WORKFLOW, {
        workflowId: orderWorkflowId(orderNumber, account.id),
        taskQueue: this.queues.orders,
        args: [input],
        workflowIdReusePolicy,
        priority: started.priority,
        // The store's deadlines as they are now: the order keeps them whatever changes later.
        memo: {
          [INPUT_HASH_MEMO]: hash,
          ...started.memo,
          ...(account.sla !== undefined && { [SLA_MEMO]: account.sla }),
          ...(this.options.checkoutBoundMs !== undefined && {
            [CHECKOUT_BOUND_MEMO]: this.options.checkoutBoundMs,
          }),
        },
        staticSummary: startSummary(orderNumber, flowLabel(input.fulfillment), input.store),
        // No personal data here: search attributes are never encrypted (docs/architecture.md §7).
        typedSearchAttributes: [
          ...started.typedSearchAttributes,
          { key: OrderNumber, value: orderNumber },
          { key: FulfillmentStage, value: Stage.RECEIVED },
          { key: FulfillmentFlow, value: flowLabel(input.fulfillment) },
          { key: NeedsAttention, value: false },
        ],
      });
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  /**
   * Whether the run ended CANCELLED without the supplier ever having the order: no svc order id,
   * no create in doubt, and a result that says so (`atSupplier` false; results of runs that ended
   * before amend existed lack it and keep their orderNumber).
   */
  private async neverAtSupplier(run: WorkflowExecutionDescription): Promise<boolean> {
    if (run.type !== ORDER_WORKFLOW || run.status.name !== 'COMPLETED') return false;
    const result = (await this.client.workflow
      .getHandle(run.workflowId, run.runId)
      .result()) as OrderStatus;
    return (
      result.stage === Stage.CANCELLED &&
      result.atSupplier === false &&
      result.svcOrderId === undefined &&
      result.outcomeUnknown === undefined
    );
  }

  /** The workflow's `status` query: stage, ids, amounts, tracking, reasons, timeline. */
  async status(orderNumber: string): Promise<OrderStatus> {
    return this.withHandle(orderNumber, (handle) =>
      this.answered(orderNumber, { query: 'status' }, () => handle.query(statusQuery)),
    );
  }

  /** Orders from visibility (eventually consistent), newest first, optionally of one stage. */
  async list(options: ListOptions = {}): Promise<OrderSummary[]> {
    const limit = options.limit ?? 100;
    const clauses = [`WorkflowType = '${ORDER_WORKFLOW}'`];
    if (options.stage !== undefined) {
      // Stages are fixed words; refuse anything else rather than splice it into the query.
      if (!isStage(options.stage)) throw new Error(`unknown stage ${String(options.stage)}`);
      clauses.push(`${FulfillmentStage.name} = '${options.stage}'`);
    }
    if (options.late === true) clauses.push(LATE_ORDERS);
    if (options.account !== undefined) clauses.push(accountVisibilityFilter(options.account));
    const out: OrderSummary[] = [];
    if (limit <= 0) return out;
    const query = clauses.join(' AND ');
    for await (const info of this.client.workflow.list({
      query,
      pageSize: Math.min(limit, 1000),
    })) {
      out.push(summarize(info));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Retry the blocked step after its cause was fixed. */
  resume(orderNumber: string, input: ResumeInput = {}): Promise<ActionResult> {
    return this.act(orderNumber, resumeUpdate.name, (h) =>
      h.startUpdate<ActionResult, [ResumeInput]>(resumeUpdate.name, { args: [input], ...ACCEPTED }),
    );
  }

  cancel(orderNumber: string, input: CancelInput): Promise<ActionResult> {
    return this.act(orderNumber, cancelUpdate.name, (h) =>
      h.startUpdate(cancelUpdate, { args: [input], ...ACCEPTED }),
    );
  }

  approvePayment(orderNumber: string, input: ApprovePaymentInput = {}): Promise<ActionResult> {
    return this.act(orderNumber, approvePaymentUpdate.name, (h) =>
      h.startUpdate<ActionResult, [ApprovePaymentInput]>(approvePaymentUpdate.name, {
        args: [input],
        ...ACCEPTED,
      }),
    );
  }

  changeLogistics(orderNumber: string, input: ChangeLogisticsInput): Promise<ActionResult> {
    return this.act(orderNumber, changeLogisticsUpdate.name, (h) =>
      h.startUpdate(changeLogisticsUpdate, { args: [input], ...ACCEPTED }),
    );
  }

  /**
   * Changes the order's body while the supplier does not have it yet (docs/architecture.md §9).
   * Throws OrderInvalidError with the field issues of the changes, or OrderActionRejectedError.
   */
  amend(orderNumber: string, input: AmendInput): Promise<ActionResult> {
    const shape = changesIssues(input.order);
    if (shape.length > 0) return Promise.reject(new OrderInvalidError(shape));
    return this.act(orderNumber, amendUpdate.name, (h) =>
      h.startUpdate(amendUpdate, { args: [input], ...ACCEPTED }),
    );
  }

  provideWaybill(orderNumber: string, input: WaybillInput): Promise<ActionResult> {
    return this.act(orderNumber, provideWaybillUpdate.name, (h) =>
      h.startUpdate(provideWaybillUpdate, { args: [input], ...ACCEPTED }),
    );
  }

  private async act(
    orderNumber: string,
    action: string,
    send: (handle: WorkflowHandle) => Promise<WorkflowUpdateHandle<ActionResult>>,
  ): Promise<ActionResult> {
    const handle = this.client.workflow.getHandle(this.workflowIdOf(orderNumber));
    let accepted = false;
    try {
      return await this.answered(orderNumber, { action, accepted: () => accepted }, async () => {
        const update = await send(handle);
        accepted = true;
        return update.result();
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        const cause = err.cause;
        if (cause instanceof ApplicationFailure && cause.type === AMEND_INVALID) {
          throw new OrderInvalidError(cause.details?.[0] as FieldIssue[]);
        }
        // The validator's (or handler's) failure carries the workflow's reason.
        throw new OrderActionRejectedError(orderNumber, action, cause?.message ?? err.message);
      }
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    // Updates answer "not found" for closed workflows too: tell the two apart.
    const closed = await handle.describe().catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) {
        throw new OrderNotFoundError(orderNumber, this.account);
      }
      throw err;
    });
    const stage = closed.typedSearchAttributes.get(FulfillmentStage);
    throw new OrderActionRejectedError(
      orderNumber,
      action,
      `the order's workflow is closed (${closed.status.name}${stage !== undefined ? `, stage ${stage}` : ''}): there is nothing left to act on`,
    );
  }

  /**
   * `call`, bounded by `answerWithinMs`; a call Temporal gives up on (a deadline, or an Update it
   * cannot deliver while the workflow task is failing) fails with the reason.
   */
  private async answered<T>(
    orderNumber: string,
    asked: { query: string } | { action: string; accepted: () => boolean },
    call: () => Promise<T>,
  ): Promise<T> {
    const ms = this.options.answerWithinMs;
    try {
      return ms === undefined
        ? await call()
        : await this.client.withDeadline(Date.now() + ms, call);
    } catch (err) {
      if (!isUnanswered(err)) throw err;
      if ('action' in asked && asked.accepted()) {
        throw new OrderActionUnderWayError(orderNumber, asked.action, Math.round((ms ?? 0) / 1000));
      }
      const reason = await whyUnanswered(this.client, this.workflowIdOf(orderNumber));
      throw new OrderUnansweredError(orderNumber, asked, reason);
    }
  }

  private async withHandle<T>(
    orderNumber: string,
    fn: (handle: WorkflowHandle) => Promise<T>,
  ): Promise<T> {
    try {
      return await fn(this.client.workflow.getHandle(this.workflowIdOf(orderNumber)));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        throw new OrderNotFoundError(orderNumber, this.account);
      }
      throw err;
    }
  }
}

/** The run is this order's workflow, started with the same input. */
function sameOrder(run: WorkflowExecutionDescription, hash: string): boolean {
  return run.type === ORDER_WORKFLOW && run.memo?.[INPUT_HASH_MEMO] === hash;
}

function summarize(info: WorkflowExecutionInfo): OrderSummary {
  const sa = info.typedSearchAttributes;
  const prefix = orderWorkflowId('');
  return {
    orderNumber:
      sa.get(OrderNumber) ??
      (info.workflowId.startsWith(prefix) ? info.workflowId.slice(prefix.length) : info.workflowId),
    workflowId: info.workflowId,
    stage: sa.get(FulfillmentStage),
    flow: sa.get(FulfillmentFlow),
    svcOrderId: sa.get(SvcOrderId),
    account: sa.get(SupplierAccount) ?? DEFAULT_ACCOUNT,
    needsAttention: sa.get(NeedsAttention) ?? false,
    ...((sa.get(SlaBreached)?.length ?? 0) > 0 && { late: sa.get(SlaBreached) }),
    ...((sa.get(ParcelCodes)?.length ?? 0) > 0 && { parcels: sa.get(ParcelCodes) }),
    executionStatus: info.status.name,
    startedAt: info.startTime.toISOString(),
  };
}
