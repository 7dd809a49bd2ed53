/**
 * How the workers of one deployment find each other: each polls the fleet's membership queue
 * (`<supplier queue>-fleet`, on which nothing is ever scheduled) under an identity that says when it
 * joined, and reads every second the queue's pollers as the server reports them (DescribeTaskQueue:
 * identity and last poll time). The roster and each process's seat follow from that report alone
 * (supplier/fleetRoster.ts). Nothing is kept in a workflow, so there is no singleton to supervise
 * and no Temporal action is spent; a crashed process simply stops polling. docs/accounts.md, "An
 * elastic fleet", says why.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';

import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';

import type { Logger } from '../telemetry/log.js';
import {
  FLEET_TIMING,
  FleetRoster,
  memberIdentity,
  type FleetTiming,
  type Poller,
} from '../supplier/fleetRoster.js';

const ACTIVITY = proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;

/** A new poll this often; each is held by the server until it gives up (no task ever comes). */
const POLL_EVERY_MS = 2_000;
/** What a poll may last: below 10 s (at the server) it logs a warning for every poll. */
const POLL_TIMEOUT_MS = 11_000;
/** The roster is read this often. */
const READ_EVERY_MS = 1_000;

/** The membership queue of the fleet that serves `supplierQueue`. */
export function fleetQueueOf(supplierQueue: string): string {
  return `${supplierQueue}-fleet`;
}

export interface FleetMembershipOptions {
  client: Client;
  namespace: string;
  /** The fleet's supplier queue (its membership queue is named after it). */
  supplierQueue: string;
  log: Logger;
  /** Shorter timings for tests; default FLEET_TIMING. */
  timing?: FleetTiming;
  /** Poll and read intervals (and how long a poll may last) for tests. */
  everyMs?: { poll: number; read: number; pollTimeout?: number };
}

export class FleetMembership {
  readonly view: FleetRoster;
  private identity: string;
  private readonly stop = new AbortController();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly taskQueue: string;
  private readonly timing: FleetTiming;
  private readonly everyMs: { poll: number; read: number; pollTimeout?: number };
  pollsSent = 0;
  private reading: Promise<void> | undefined;
  private lastError = '';

  private constructor(private readonly o: FleetMembershipOptions) {
    this.timing = o.timing ?? FLEET_TIMING;
    this.everyMs = o.everyMs ?? { poll: POLL_EVERY_MS, read: READ_EVERY_MS };
    this.taskQueue = fleetQueueOf(o.supplierQueue);
    const id = `${hostname().replace(/[^\w.-]/g, '_')}.${process.pid}.${randomBytes(3).toString('hex')}`;
    this.view = new FleetRoster(`fleet:${this.taskQueue}`, id, this.timing);
    this.identity = memberIdentity(id, Date.now());
    // Each poll in flight listens for the stop: several at once, by design.
    setMaxListeners(64, this.stop.signal);
  }

  /**
   * Joins the fleet: polls from now on, and resolves once this process holds a seat (every other
   * member has had time to see it), or after `waitMs` with a warning: it sends nothing until then.
   */
  static async join(o: FleetMembershipOptions, waitMs = 20_000): Promise<FleetMembership> {
    const m = new FleetMembership(o);
    m.poll();
    m.timers.push(
      setInterval(() => {
        m.poll();
      }, m.everyMs.poll),
    );
    m.timers.push(setInterval(() => void m.read(), m.everyMs.read));
    const until = Date.now() + waitMs;
    const sending = (): boolean => m.view.seatAt(Date.now()).kind !== 'out';
    while (!sending() && Date.now() < until) {
      await m.read();
      await new Promise((r) => setTimeout(r, 200));
    }
    const where = { member: m.view.me, queue: m.taskQueue, fleet: m.view.size() };
    if (sending()) o.log.info(where, 'joined the fleet');
    else o.log.warn(where, 'not yet sending: the fleet has not listed this process');
    return m;
  }

  /**
   * Leaves: says so under a second identity, keeps its slots for `leaveDelayMs` (every other
   * member sees it meanwhile, and takes the slots from then on), then stops polling.
   */
  async leave(): Promise<void> {
    if (this.stop.signal.aborted) return;
    const leaveAt = Date.now() + this.timing.leaveDelayMs;
    this.view.leave(leaveAt);
    const [, id, joinedAt] = this.identity.split('/');
    this.identity = memberIdentity(id!, Number(joinedAt), leaveAt);
    this.poll();
    await new Promise((r) => setTimeout(r, Math.max(0, leaveAt - Date.now())));
    this.close();
  }

  /** Stops at once (what a crash looks like to the others). */
  close(): void {
    for (const t of this.timers) clearInterval(t);
    this.stop.abort();
  }

  private poll(): void {
    const { client, namespace } = this.o;
    const { connection } = client;
    // The client adds a listener to a call's signal and never removes it: each poll gets a signal
    // of its own, let go when it ends, or the stop's listeners grow by one every poll.
    const call = new AbortController();
    const onStop = (): void => {
      call.abort();
    };
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    this.pollsSent += 1;
    void connection
      .withAbortSignal(call.signal, () =>
        connection.withDeadline(Date.now() + (this.everyMs.pollTimeout ?? POLL_TIMEOUT_MS), () =>
          client.workflowService.pollActivityTaskQueue({
            namespace,
            taskQueue: { name: this.taskQueue },
            identity: this.identity,
          }),
        ),
      )
      .catch((err: unknown) => {
        this.failed('poll', err);
      })
      .finally(() => {
        this.stop.signal.removeEventListener('abort', onStop);
      });
  }

  /** Reads the roster (one read at a time). */
  private read(): Promise<void> {
    this.reading ??= this.readOnce().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const { client, namespace } = this.o;
    try {
      const { pollers } = await client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: this.taskQueue },
        taskQueueType: ACTIVITY,
      });
      const readAt = Date.now();
      const seen: Poller[] = pollers.flatMap((p) => {
        const lastAccessMs = optionalTsToMs(p.lastAccessTime);
        return p.identity == null || lastAccessMs === undefined
          ? []
          : [{ identity: p.identity, lastAccessMs }];
      });
      this.view.update(seen, readAt);
      this.lastError = '';
    } catch (err) {
      this.failed('read', err);
    }
  }

  /** A failure is logged once until the next success: the view itself goes out on its own. */
  private failed(what: string, err: unknown): void {
    if (this.stop.signal.aborted) return;
    const message = err instanceof Error ? err.message : String(err);
    if (what === 'poll' && /deadline|timed? ?out/i.test(message)) return;
    if (message === this.lastError) return;
    this.lastError = message;
    this.o.log.warn({ err: message, queue: this.taskQueue }, `fleet membership ${what} failed`);
  }
}
