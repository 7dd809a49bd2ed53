/**
 * One round of `dropflow bench accounts`: orders submitted for some accounts of the fleet, each
 * order carrying its `account`; the supplier's record watched (created, paid) so that each
 * account's counters are snapshotted the moment the supplier has all its orders paid; then each
 * order's submit → PAID from its own status timeline. The idle round submits the small accounts'
 * orders alone; the measured round submits the backlog first and the small accounts' orders once
 * the backlog drains.
 */
import { Stage, statusQuery, type OrderStatus } from 'dropflow/client';
import type { SandboxStats } from '../sandbox/state.js';
import { delay } from '../localStack/wait.js';
import type { AccountsFleet, FleetAccount } from './accountsFleet.js';
import { benchOrders, type BenchOrder } from './benchOrders.js';
import { SandboxControls } from '../localStack/sandboxControls.js';

/** How often the supplier's record is read (one control request). */
const WATCH_EVERY_MS = 500;
const SAY_EVERY_MS = 10_000;
/** Starts and queries in flight at once. */
const SUBMITS_IN_FLIGHT = 32;
const QUERIES_IN_FLIGHT = 8;
/**
 * After the supplier had an order paid, how long its workflow may take to say PAID, and the bench
 * keeps asking: under a 1,000-order backlog a status query may time out while workers are busy.
 */
const PAID_GRACE_MS = 180_000;

export interface RoundOptions {
  /** `idle`, `main`: names the orders and the progress lines. */
  label: string;
  /** The account whose orders go first, all at once; the others follow once it drains. */
  big?: FleetAccount;
  small: readonly FleetAccount[];
  /** Orders per account: the backlog, and the small accounts' count. */
  backlog: number;
  smallOrders: number;
  deadlineMs: number;
  say: (line: string) => void;
}

export interface AccountRound {
  orders: number;
  /** Submit → PAID per order (the workflow's timeline); Infinity for one not PAID. */
  toPaidMs: number[];
  firstSubmitAt: number | undefined;
  /** The latest PAID of the account's orders (epoch ms), when all are PAID. */
  lastPaidAt: number | undefined;
  /** The account's counters when the supplier had every one of its orders paid. */
  atPaid: SandboxStats | undefined;
}

export interface RoundResult {
  byAccount: Map<string, AccountRound>;
  /** Backlog orders the supplier had not paid yet when the small accounts' orders were sent. */
  backlogUnpaidAtSmallSubmit: number | undefined;
  /** When every order was PAID (or the round gave up). */
  endedAt: number;
}

interface Submitted {
  account: FleetAccount;
  order: BenchOrder;
  submittedAt: number;
  workflowId?: string;
}

export async function runRound(fleet: AccountsFleet, o: RoundOptions): Promise<RoundResult> {
  const accounts = [...(o.big === undefined ? [] : [o.big]), ...o.small];
  const ordersOf = new Map<string, BenchOrder[]>();
  for (const account of accounts) {
    const count = account === o.big ? o.backlog : o.smallOrders;
    const prefix = `${account.id}-${o.label}`.toUpperCase();
    const orders = await benchOrders(count, prefix);
    for (const order of orders) order.body['account'] = account.id;
    ordersOf.set(account.id, orders);
  }
  const watch = new SupplierWatch(fleet, accounts, ordersOf, o.big);
  const deadline = Date.now() + o.deadlineMs;
  const submitted: Submitted[] = [];
  let lastSaid = Date.now();
  const timer = setInterval(() => {
    watch.tick().catch((err: unknown) => {
      o.say(`${o.label}: reading the sandbox's orders failed: ${String(err)}`);
    });
    if (Date.now() - lastSaid >= SAY_EVERY_MS) {
      lastSaid = Date.now();
      o.say(`${o.label}: ${watch.describe()}`);
    }
  }, WATCH_EVERY_MS);
  let backlogUnpaidAtSmallSubmit: number | undefined;
  try {
    if (o.big !== undefined) {
      await submitAll(fleet, o.big, ordersOf.get(o.big.id)!, submitted);
      // The small accounts' orders arrive while the backlog drains: once a tenth of it exists.
      const started = Math.max(1, Math.ceil(o.backlog / 10));
      const big = o.big;
      await until(() => watch.created(big) >= started, deadline);
      if (o.small.length > 0) backlogUnpaidAtSmallSubmit = o.backlog - watch.paid(big);
    }
    await Promise.all(o.small.map((a) => submitAll(fleet, a, ordersOf.get(a.id)!, submitted)));
    await until(() => accounts.every((a) => watch.allPaid(a)), deadline);
  } finally {
    clearInterval(timer);
  }
  await watch.tick();
  o.say(`${o.label}: ${watch.describe()}`);

  const paidAt = await paidTimes(fleet, submitted, watch);
  const byAccount = new Map<string, AccountRound>();
  for (const account of accounts) {
    const mine = submitted.filter((s) => s.account === account);
    const toPaidMs = mine.map((s) => {
      const at = paidAt.get(s.order.orderNumber);
      return at === undefined ? Number.POSITIVE_INFINITY : at - s.submittedAt;
    });
    const orders = ordersOf.get(account.id)!.length;
    const paid = mine.flatMap((s) => paidAt.get(s.order.orderNumber) ?? []);
    byAccount.set(account.id, {
      orders,
      toPaidMs,
      firstSubmitAt: mine.length === 0 ? undefined : Math.min(...mine.map((s) => s.submittedAt)),
      lastPaidAt: orders > 0 && paid.length === orders ? Math.max(...paid) : undefined,
      atPaid: watch.snapshot(account),
    });
  }
  return { byAccount, backlogUnpaidAtSmallSubmit, endedAt: Date.now() };
}

async function submitAll(
  fleet: AccountsFleet,
  account: FleetAccount,
  orders: readonly BenchOrder[],
  into: Submitted[],
): Promise<void> {
  await inFlight(orders, SUBMITS_IN_FLIGHT, async (order) => {
    const entry: Submitted = { account, order, submittedAt: Date.now() };
    into.push(entry);
    const started = await fleet.orders.submit(order.body);
    entry.workflowId = started.workflowId;
  });
}

/** The PAID moment of each order's timeline, for the orders the supplier has paid. */
async function paidTimes(
  fleet: AccountsFleet,
  submitted: readonly Submitted[],
  watch: SupplierWatch,
): Promise<Map<string, number>> {
  const paidAt = new Map<string, number>();
  let waiting = submitted.filter((s) => s.workflowId !== undefined && watch.isPaid(s));
  const giveUpAt = Date.now() + PAID_GRACE_MS;
  while (waiting.length > 0) {
    await inFlight(waiting, QUERIES_IN_FLIGHT, async (s) => {
      const status = await fleet.stack.client.workflow
        .getHandle(s.workflowId!)
        .query<OrderStatus>(statusQuery)
        .catch(() => undefined);
      const paid = status?.timeline.find((entry) => entry.stage === Stage.PAID);
      if (paid !== undefined) paidAt.set(s.order.orderNumber, Date.parse(paid.at));
    });
    waiting = waiting.filter((s) => !paidAt.has(s.order.orderNumber));
    if (waiting.length === 0 || Date.now() > giveUpAt) break;
    await delay(1_000);
  }
  return paidAt;
}

/** The supplier's record of the round's orders, per account, read from the sandbox's controls. */
class SupplierWatch {
  private readonly byOpenId = new Map<string, { account: FleetAccount; numbers: Set<string> }>();
  private readonly counts = new Map<string, { created: number; paid: number }>();
  private readonly paidNumbers = new Set<string>();
  private readonly snapshots = new Map<string, SandboxStats>();
  private reading: Promise<void> | undefined;

  constructor(
    private readonly fleet: AccountsFleet,
    private readonly accounts: readonly FleetAccount[],
    ordersOf: ReadonlyMap<string, readonly BenchOrder[]>,
    private readonly big: FleetAccount | undefined,
  ) {
    for (const account of accounts) {
      const numbers = new Set(ordersOf.get(account.id)!.map((x) => x.orderNumber));
      this.byOpenId.set(account.openId, { account, numbers });
      this.counts.set(account.id, { created: 0, paid: 0 });
    }
  }

  /** Reads the supplier's record, unless a read is still under way (that one is awaited). */
  tick(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const orders = await SandboxControls.orders(this.fleet.stack.sandbox.url);
    const counts = new Map(this.accounts.map((a) => [a.id, { created: 0, paid: 0 }]));
    for (const order of orders) {
      const mine = this.byOpenId.get(order.openId);
      if (mine === undefined || !mine.numbers.has(order.orderNumber)) continue;
      const c = counts.get(mine.account.id)!;
      c.created += 1;
      if (order.paid) {
        c.paid += 1;
        this.paidNumbers.add(order.orderNumber);
      }
    }
    for (const account of this.accounts) {
      const c = counts.get(account.id)!;
      this.counts.set(account.id, c);
      const all = this.byOpenId.get(account.openId)!.numbers.size;
      if (c.paid >= all && !this.snapshots.has(account.id)) {
        this.snapshots.set(account.id, await account.controls.stats());
      }
    }
  }

  created(account: FleetAccount): number {
    return this.counts.get(account.id)!.created;
  }

  paid(account: FleetAccount): number {
    return this.counts.get(account.id)!.paid;
  }

  allPaid(account: FleetAccount): boolean {
    return this.snapshots.has(account.id);
  }

  isPaid(s: Submitted): boolean {
    return this.paidNumbers.has(s.order.orderNumber);
  }

  snapshot(account: FleetAccount): SandboxStats | undefined {
    return this.snapshots.get(account.id);
  }

  describe(): string {
    const of = (accounts: readonly FleetAccount[]) => {
      const paid = accounts.reduce((n, a) => n + this.paid(a), 0);
      const all = accounts.reduce((n, a) => n + this.byOpenId.get(a.openId)!.numbers.size, 0);
      return `${paid}/${all}`;
    };
    const others = this.accounts.filter((a) => a !== this.big);
    return [
      ...(this.big === undefined ? [] : [`backlog paid ${of([this.big])}`]),
      ...(others.length > 0 ? [`other accounts paid ${of(others)}`] : []),
    ].join(', ');
  }
}

async function until(done: () => boolean, deadline: number): Promise<void> {
  while (!done() && Date.now() < deadline) await delay(WATCH_EVERY_MS);
}

/** Runs `work` on every item, at most `limit` at once. */
async function inFlight<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
