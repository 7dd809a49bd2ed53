/**
 * An account's checkout coordinator from outside a workflow: an order that finds it not running
 * starts it with its own "ready" (signal-with-start); workers start it with their settings; the
 * gateway tells it of a top-up (signal-with-start too). On the orders queue: no supplier call here.
 * Every start carries the account (SupplierAccount, tier memo: accounts/accountStart.ts); the
 * default account's coordinator keeps its id.
 */
import { QueryNotRegisteredError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { accountScope, DEFAULT_ACCOUNT } from '../accounts/contract.js';
import {
  accountStartOptions,
  WorkflowPriority,
  type AccountRef,
} from '../accounts/accountStart.js';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import { longestOwnGapMs } from '../supplier/fleetGrid.js';
import {
  CHECKOUT_WORKFLOW,
  checkoutMemberQuery,
  checkoutOrderBoundMs,
  checkoutReadyManySignal,
  checkoutReadySignal,
  checkoutStartOptions,
  checkoutSettingsSignal,
  checkoutWorkflowId,
  type CheckoutMembership,
  type ReadyOrder,
} from './contract.js';
import { DEFAULT_CHECKOUT_SETTINGS, type CheckoutSettings } from '../terms/checkoutSettings.js';
import { readyBuffer } from './readyBuffer.js';

/** Where the coordinator holds an order, or `gone`: no coordinator runs for the account. */
export type CheckoutWhere = CheckoutMembership | { state: 'gone' };

/**
 * Whether the order workflow of a supplier order runs: `RUNNING`, how its last run ended
 * (`TERMINATED`, `FAILED`, …), or `NOT_FOUND` (no order of the account's queue has that svc order id).
 */
export type OrderRunState = 'RUNNING' | 'NOT_FOUND' | (string & {});

/** The coordinator's id for `account` in the queue set. */
export function accountCheckoutId(queues: TaskQueues, account: string): string {
  return checkoutWorkflowId(accountScope(queuePrefix(queues), account));
}

/** How the account's coordinator is started (signal-with-start): id, queue, input, account. */
export function accountCheckoutStart(
  queues: TaskQueues,
  account: AccountRef,
  settings: CheckoutSettings,
) {
  const scope = accountScope(queuePrefix(queues), account.id);
  return {
    ...checkoutStartOptions(scope, queues.orders, settings),
    ...accountStartOptions(account, WorkflowPriority.Singleton),
  };
}

/**
 * The settings of an account's coordinator: on a fleet, the quiet period at least two of the
 * account's own slots. Its orders become ready one create apart, and each process sends the
 * account's calls only in its own slots of the fleet's grid (supplier/pacing.ts), at tier 1 on two
 * processes 2.1 s apart: past the 2 s default, so a batch closed whenever one create came in the
 * process's next own slot (`dropflow bench accounts`: 1.8 to 3.0 supplier calls per order on
 * tier-1 accounts instead of 1.4). Two slots let one missed slot pass. `fleetSize`: the processes
 * sharing the grid; a lone process has no grid, and the configured period stands.
 */
export function accountCheckoutSettings(
  settings: CheckoutSettings,
  account: AccountRef,
  fleetSize = 1,
): CheckoutSettings {
  if (account.tier === undefined || fleetSize <= 1) return settings;
  const quietMs = Math.max(
    settings.quietMs,
    Math.ceil(2 * longestOwnGapMs(fleetSize, account.tier)),
  );
  return quietMs === settings.quietMs ? settings : { ...settings, quietMs };
}

/** Starts the account's coordinator if needed and gives it these settings (for its tier). */
export async function configureCheckout(
  client: Client,
  queues: TaskQueues,
  settings: CheckoutSettings,
  account: AccountRef = { id: DEFAULT_ACCOUNT },
  fleetSize = 1,
): Promise<void> {
  const own = accountCheckoutSettings(settings, account, fleetSize);
  await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
    ...accountCheckoutStart(queues, account, own),
    signal: checkoutSettingsSignal,
    signalArgs: [own],
  });
}

/**
 * The checkout activities of the orders of every account. `orderWorkflow` is the order's workflow
 * type (the order's contract names it: checkout sits below the order). `accountOf` tells what is
 * known of an account (its tier) when a coordinator must be started; the default account when none
 * is given.
 */
export function checkoutActivities(
  client: Client,
  queues: TaskQueues,
  orderWorkflow: string,
  settings: CheckoutSettings = DEFAULT_CHECKOUT_SETTINGS,
  orderBoundMs?: number,
  accountOf: (id: string) => AccountRef = (id) => ({ id }),
  fleetSize = 1,
) {
  /** How an order's signal finds its account's coordinator, started if it does not run. */
  const startOf = (account: string) => {
    const ref = accountOf(account);
    return accountCheckoutStart(queues, ref, accountCheckoutSettings(settings, ref, fleetSize));
  };
  /** Ready orders gathered per account: one signal-with-start carries each flush. */
  const announce = readyBuffer<ReadyOrder>(async (account, orders) => {
    await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
      ...startOf(account),
      signal: checkoutReadyManySignal,
      signalArgs: [orders],
    });
  });
  return {
    /** How long an order waits on its coordinator before asking where it holds it. */
    checkoutWaitBound(): Promise<number> {
      return Promise.resolve(checkoutOrderBoundMs(settings, orderBoundMs));
    },

    /**
     * Where the coordinator of the order's account holds this order; `gone` when none runs
     * (terminated, never started).
     */
    async checkoutMember(
      workflowId: string,
      account: string = DEFAULT_ACCOUNT,
    ): Promise<CheckoutWhere> {
      const handle = client.workflow.getHandle(accountCheckoutId(queues, account));
      try {
        const { status } = await handle.describe();
        if (status.name !== 'RUNNING') return { state: 'gone' };
        return await handle.query(checkoutMemberQuery, workflowId);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { state: 'gone' };
        // A coordinator from before the query: it may hold the order; the order waits again.
        if (err instanceof QueryNotRegisteredError || /register a handler/.test(String(err))) {
          return { state: 'queued' };
        }
        throw err;
      }
    },

    /**
     * Whether the order workflow that holds `svcOrderId` still runs (a shipment's payer, say):
     * found by its SvcOrderId among the account's orders, each run described (not visibility's
     * possibly trailing status).
     */
    async orderRunOf(svcOrderId: string): Promise<OrderRunState> {
      const query =
        `WorkflowType = '${orderWorkflow}' AND TaskQueue = '${quoted(queues.orders)}' ` +
        `AND SvcOrderId = '${quoted(svcOrderId)}'`;
      const ids = new Set<string>();
      for await (const run of client.workflow.list({ query })) ids.add(run.workflowId);
      let ended: string | undefined;
      for (const id of ids) {
        try {
          const { status } = await client.workflow.getHandle(id).describe();
          if (status.name === 'RUNNING') return 'RUNNING';
          ended ??= status.name;
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }
      return ended ?? 'NOT_FOUND';
    },

    /** For an order whose signal found no coordinator: starts its account's with the order in it. */
    async joinCheckout(ready: ReadyOrder, account: string = DEFAULT_ACCOUNT): Promise<void> {
      await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
        ...startOf(account),
        signal: checkoutReadySignal,
        signalArgs: [ready],
      });
    },

    /**
     * An order is ready (a local activity of the order): it goes to its coordinator with the
     * others of its account that this worker gathered in about a second, one signal-with-start
     * for all. Settles as that signal does.
     */
    announceReady(ready: ReadyOrder, account: string = DEFAULT_ACCOUNT): Promise<void> {
      return announce(account, ready);
    },
  };
}

export type CheckoutActivities = ReturnType<typeof checkoutActivities>;

/** A value inside a visibility query's single quotes. */
function quoted(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

declare module '../durable/supplierActivities.js' {
  interface OrdersQueueActivities extends CheckoutActivities {}
}
