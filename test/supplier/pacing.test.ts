/**
 * In-process pacing of an account (supplier/pacer.ts, adaptiveRate.ts, pacing.ts) on a fake clock:
 * slots exactly 1/rate apart, by priority; a wait given up or too long is never done; each 1600200
 * halves the rate and accepted calls bring it back step by step.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_PACE_WAIT_MS,
  PACED_RETURN_MS,
  toApplicationFailure,
} from '../../src/supplier/supplierCall.js';
import { FailureType, type SupplierFailureDetails } from '../../src/supplier/failureDetails.js';
import { AdaptiveRate } from '../../src/supplier/adaptiveRate.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { fixedShare } from '../../src/supplier/fleet.js';
import { Pacer, PaceTooLong, type TakeOptions } from '../../src/supplier/pacer.js';
import { gridPace } from '../../src/supplier/fleetGrid.js';
import { AccountPacing, gridPhaseOf } from '../../src/supplier/pacing.js';
import { isThrottled } from '../../src/durable/failures.js';
import { busiestSecond } from '../support/rate.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

const digest = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Takes a slot of the account and sends in it at once, as the supplier client does: when. */
async function send(
  pacing: AccountPacing,
  rateClass: 'standard' | 'batch' = 'standard',
  options: TakeOptions = {},
): Promise<number> {
  const slot = await pacing.take(rateClass, options);
  const at = Date.now();
  slot?.sent(at);
  return at;
}

/** Takes a slot and records, on the fake clock, when it was given (ms after T0). */
function slot(pacer: Pacer, log: string[], name: string, options = {}): Promise<void> {
  return pacer.take(options).then(() => {
    log.push(`${name}@${Date.now() - T0}`);
  });
}

describe('Pacer', () => {
  it('hands out slots exactly 1000 / rate ms apart, with no margin added', async () => {
    const log: string[] = [];
    const pacer = new Pacer(() => 4);
    const all = Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => slot(pacer, log, n)));
    await vi.advanceTimersByTimeAsync(1_000);
    await all;
    expect(log).toEqual(['a@0', 'b@250', 'c@500', 'd@750', 'e@1000']);
  });

  it('gives the next slot to the lowest priority key, then in call order', async () => {
    const log: string[] = [];
    const pacer = new Pacer(() => 1);
    const all = Promise.all([
      slot(pacer, log, 'first', { priority: 5 }),
      slot(pacer, log, 'tracking', { priority: 4 }),
      slot(pacer, log, 'create-1', { priority: 3 }),
      slot(pacer, log, 'create-2', { priority: 3 }),
      slot(pacer, log, 'payment', { priority: 1 }),
    ]);
    await vi.advanceTimersByTimeAsync(4_000);
    await all;
    expect(log).toEqual([
      'first@0',
      'payment@1000',
      'create-1@2000',
      'create-2@3000',
      'tracking@4000',
    ]);
  });

  it('a caller whose signal aborts leaves the line at once, and the one behind takes its slot', async () => {
    const log: string[] = [];
    const pacer = new Pacer(() => 1);
    await pacer.take();
    const abort = new AbortController();
    const reason = new Error('activity cancelled');
    const given = pacer.take({ signal: abort.signal });
    const behind = slot(pacer, log, 'behind');
    await vi.advanceTimersByTimeAsync(300);
    abort.abort(reason);
    await expect(given).rejects.toBe(reason);
    expect(pacer.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(700);
    await behind;
    expect(log).toEqual(['behind@1000']);
  });

  it('an already aborted signal is refused without a slot', async () => {
    const pacer = new Pacer(() => 1);
    const abort = new AbortController();
    abort.abort(new Error('gone'));
    await expect(pacer.take({ signal: abort.signal })).rejects.toThrow('gone');
    const log: string[] = [];
    await slot(pacer, log, 'next');
    expect(log).toEqual(['next@0']);
  });

  it('refuses a slot further away than the caller may wait, and keeps that slot for others', async () => {
    const log: string[] = [];
    const pacer = new Pacer(() => 1);
    await pacer.take();
    const near = slot(pacer, log, 'near', { maxWaitMs: 1_500 });
    const far = pacer.take({ maxWaitMs: 1_500 });
    await expect(far).rejects.toBeInstanceOf(PaceTooLong);
    await expect(far).rejects.toMatchObject({ waitMs: 2_000 });
    const unbounded = slot(pacer, log, 'unbounded');
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all([near, unbounded]);
    expect(log).toEqual(['near@1000', 'unbounded@2000']);
  });

  it('refuses a waiter that a later, more urgent caller pushes past its bound', async () => {
    const pacer = new Pacer(() => 1);
    await pacer.take();
    const tracking = pacer.take({ priority: 4, maxWaitMs: 1_500 });
    const payment = pacer.take({ priority: 1 });
    await expect(tracking).rejects.toMatchObject({ waitMs: 2_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    await payment;
  });

  it('follows a rate that changes between slots', async () => {
    const log: string[] = [];
    let rate = 1;
    const pacer = new Pacer(() => rate);
    await slot(pacer, log, 'a');
    rate = 0.5;
    const b = slot(pacer, log, 'b');
    const c = slot(pacer, log, 'c');
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all([b, c]);
    // a's slot was given at 1/s, the ones after it at 1 per 2 s.
    expect(log).toEqual(['a@0', 'b@1000', 'c@3000']);
  });
});

describe('a fleet of processes sharing an account (SUPPLIER_FLEET_SHARE)', () => {
  for (const tier of [1, 2, 4, 6]) {
    it(`two processes handed a burst at once never put more than ${tier} calls in any 1 s (tier ${tier})`, async () => {
      // What the server's per-key limit lets out after a quiet spell: a second's budget at once,
      // then its rate; here more, on both processes at the same moment. The account's grid starts
      // where its key puts it.
      const gridPhase = gridPhaseOf(digest(`key-${tier}`));
      const processes = [0, 1].map(
        (index) =>
          new AccountPacing({
            perSecond: tier,
            batchPerSecond: 2,
            fleet: { index, of: 2 },
            gridPhase,
          }),
      );
      const sent: number[] = [];
      const calls = processes.flatMap((p) =>
        Array.from({ length: 3 * tier }, () => send(p).then((at) => sent.push(at - T0))),
      );
      await vi.advanceTimersByTimeAsync(20_000);
      await Promise.all(calls);
      expect(sent).toHaveLength(6 * tier);
      expect(busiestSecond(sent)).toBe(tier);
      // One process's calls (every other slot) as late as they may leave still fit.
      const late = sent.map((t, i) => (i % 2 === 0 ? t + gridPace(2, tier).catchUpMs : t));
      expect(busiestSecond(late)).toBe(tier);
    });
  }

  for (const tier of [4, 6]) {
    it(`the batch queries of two processes keep their own 2/s as well, within the tier (tier ${tier})`, async () => {
      const processes = [0, 1].map(
        (index) =>
          new AccountPacing({ perSecond: tier, batchPerSecond: 2, fleet: { index, of: 2 } }),
      );
      const all: number[] = [];
      const batch: number[] = [];
      const calls = processes.flatMap((p) =>
        Array.from({ length: 4 * tier }, (_, i) => {
          const rateClass = i % 2 === 0 ? 'batch' : 'standard';
          // The tracking sweep's queries wait behind payments: they must not then go together.
          return send(p, rateClass, { priority: rateClass === 'batch' ? 4 : 1 }).then((at) => {
            all.push(at - T0);
            if (rateClass === 'batch') batch.push(at - T0);
          });
        }),
      );
      await vi.advanceTimersByTimeAsync(60_000);
      await Promise.all(calls);
      expect(batch).toHaveLength(4 * tier);
      expect(busiestSecond(all)).toBeLessThanOrEqual(tier);
      expect(busiestSecond(batch)).toBeLessThanOrEqual(2);
    });
  }

  it('the accounts of one process have their slots at different moments, the same in every process', async () => {
    // Tiers 6 and 2: on grids that all began at the epoch, every third slot of the one fell on a
    // slot of the other, and the process had two calls to send at the same moment.
    const [a, b] = ['key-a', 'key-b'].map((key) => gridPhaseOf(digest(key)));
    // A phase is a fraction of the period, and two keys get two phases.
    for (const phase of [a!, b!]) expect(phase >= 0 && phase < 1, String(phase)).toBe(true);
    expect(a).not.toBe(b);
    // Process 0 of the fleet: account a at tier 6 and account b at tier 2; process 1: account a,
    // its phase worked out on its own from the same key.
    const sends = await Promise.all(
      [
        { perSecond: 6, gridPhase: a!, index: 0 },
        { perSecond: 2, gridPhase: b!, index: 0 },
        { perSecond: 6, gridPhase: gridPhaseOf(digest('key-a')), index: 1 },
      ].map(async ({ index, ...rates }) => {
        const pacing = new AccountPacing({
          ...rates,
          batchPerSecond: 2,
          fleet: { index, of: 2 },
        });
        const sent: number[] = [];
        const calls = Array.from({ length: 12 }, () => send(pacing).then((at) => sent.push(at)));
        await vi.advanceTimersByTimeAsync(20_000);
        await Promise.all(calls);
        return sent;
      }),
    );
    const closest = Math.min(...sends[0]!.flatMap((x) => sends[1]!.map((y) => Math.abs(x - y))));
    expect(closest).toBeGreaterThan(20);
    // The two processes share account a's grid: their calls alternate, a period apart (less at
    // most a call's catch-up: the first slot may be one that began a moment ago).
    const { periodMs, catchUpMs } = gridPace(2, 6);
    const fleetOfA = [...sends[0]!.map((t) => [t, 0]), ...sends[2]!.map((t) => [t, 2])].sort(
      (x, y) => x[0]! - y[0]!,
    );
    for (let i = 1; i < fleetOfA.length; i++) {
      expect(fleetOfA[i]![1]).not.toBe(fleetOfA[i - 1]![1]);
      expect(fleetOfA[i]![0]! - fleetOfA[i - 1]![0]!).toBeGreaterThanOrEqual(periodMs - catchUpMs);
    }
  });

  it('a process alone keeps the exact rate, with no slack: the single-account default is not slower', async () => {
    const log: string[] = [];
    const pacing = new AccountPacing({
      perSecond: 4,
      batchPerSecond: 2,
      fleet: { index: 0, of: 1 },
    });
    const all = Promise.all(
      ['a', 'b', 'c'].map((n) =>
        pacing.take('standard').then(() => log.push(`${n}@${Date.now() - T0}`)),
      ),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await all;
    expect(log).toEqual(['a@0', 'b@250', 'c@500']);
  });

  it('a timer that fires late by more than a moment skips the slot rather than crowd the next process’s', async () => {
    const pacer = new Pacer(() => 6, { fleet: fixedShare({ index: 0, of: 2 }), tier: 6 });
    const sent: number[] = [];
    const first = pacer.take().then(() => sent.push(Date.now()));
    await vi.advanceTimersByTimeAsync(1_000);
    await first;
    const slot = sent[0]!;
    // This process's slots: slot, slot + 348, slot + 697 (174 ms apart, every other one its
    // own). The clock jumps past the second one, beyond its catch-up (80 ms), into the other
    // process's (slot + 523).
    vi.setSystemTime(slot + 440);
    const second = pacer.take().then(() => sent.push(Date.now()));
    await vi.advanceTimersByTimeAsync(1_000);
    await second;
    expect(sent[1]! - slot).toBeCloseTo(4 * gridPace(2, 6).periodMs, -0.5);
  });

  it('a call that comes back to its slot too late lets it go and takes its next own slot', async () => {
    const pacing = new AccountPacing({
      perSecond: 6,
      batchPerSecond: 2,
      fleet: { index: 0, of: 2 },
    });
    // The first slot the grid hands out reaches the call past its catch-up: the process stalled
    // between the slot's timer and the call.
    const pace = gridPace(2, 6);
    const stalled = { k: 0, at: Date.now() - 100, by: Date.now() - 20, pace };
    const take = vi.spyOn(Pacer.prototype, 'take').mockResolvedValueOnce(stalled);
    let sentAt: number | undefined;
    const call = pacing.take('standard').then(() => (sentAt = Date.now()));
    await vi.advanceTimersByTimeAsync(1_000);
    await call;
    expect(take).toHaveBeenCalledTimes(2);
    // Sent in a slot of its own (every other of the grid's), not the late one.
    const k = Math.round(sentAt! / pace.periodMs);
    expect(k % 2).toBe(0);
    expect(Math.abs(sentAt! - k * pace.periodMs)).toBeLessThan(1);
  });

  it('alone, a process sends a call its slot reaches late: no other process’s slot is near', async () => {
    const pacing = new AccountPacing({ perSecond: 6, batchPerSecond: 2 });
    const take = vi.spyOn(Pacer.prototype, 'take').mockResolvedValueOnce(undefined);
    await pacing.take('standard');
    expect(take).toHaveBeenCalledTimes(1);
  });

  it('a caller whose every slot a busy process misses is refused at its bound, not left in line', async () => {
    const { periodMs, catchUpMs } = gridPace(2, 6);
    // Start 10 ms past the catch-up of one of this process's slots (every other of the grid's).
    const k = 2 * Math.ceil(Date.now() / periodMs / 2);
    vi.setSystemTime(Math.ceil(k * periodMs) + catchUpMs + 10);
    // Every timer fires 100 ms late (a blocked event loop): past the catch-up, so no slot is taken.
    const setTimer = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation((fn: () => void, ms?: number) =>
      setTimer(fn, (ms ?? 0) + 100),
    );
    const pacer = new Pacer(() => 6, { fleet: fixedShare({ index: 0, of: 2 }), tier: 6 });
    const started = Date.now();
    const outcome: { refused?: unknown; given?: boolean } = {};
    void pacer.take({ maxWaitMs: 1_000 }).then(
      () => (outcome.given = true),
      (err: unknown) => (outcome.refused = err),
    );
    while (!('refused' in outcome) && !('given' in outcome) && Date.now() - started < 10_000) {
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(outcome.given).toBeUndefined();
    expect(outcome.refused).toBeInstanceOf(PaceTooLong);
    expect(Date.now() - started).toBeLessThan(1_000 + 2 * periodMs + 150);
    expect(pacer.waiting).toBe(0);
  });
});

describe('AdaptiveRate', () => {
  it('halves on each refusal down to a quarter, and climbs back one eighth per accepted call', () => {
    const rate = new AdaptiveRate(4);
    rate.refused(T0);
    expect(rate.perSecond).toBe(2);
    rate.refused(Date.now());
    expect(rate.perSecond).toBe(1);
    rate.refused(Date.now());
    expect(rate.perSecond).toBe(1);
    const climb: number[] = [];
    for (let i = 0; i < 7; i++) {
      rate.accepted();
      climb.push(rate.perSecond);
    }
    expect(climb).toEqual([1.5, 2, 2.5, 3, 3.5, 4, 4]);
  });

  it('counts the refusals of calls already on their way at the last cut once', () => {
    const rate = new AdaptiveRate(1);
    const sentAt = Date.now();
    vi.advanceTimersByTime(100);
    rate.refused(sentAt);
    rate.refused(sentAt);
    rate.refused(sentAt);
    expect(rate.perSecond).toBe(0.5);
    vi.advanceTimersByTime(100);
    rate.refused(Date.now());
    expect(rate.perSecond).toBe(0.25);
  });
});

describe('AccountPacing', () => {
  it('a batch query spends a slot of the account as well as one of its own class', async () => {
    const pacing = new AccountPacing({ perSecond: 1, batchPerSecond: 2 });
    const log: string[] = [];
    const sent = (name: string, rateClass: 'standard' | 'batch') =>
      pacing.take(rateClass).then(() => log.push(`${name}@${Date.now() - T0}`));
    await sent('batch', 'batch');
    const create = sent('create', 'standard');
    await vi.advanceTimersByTimeAsync(1_000);
    await create;
    expect(log).toEqual(['batch@0', 'create@1000']);
  });

  it('slows the account down on 1600200 and not on other answers', () => {
    const pacing = new AccountPacing({ perSecond: 1, batchPerSecond: 2 });
    pacing.answered(SupplierCode.SystemBusy, Date.now());
    expect(pacing.rate.perSecond).toBe(1);
    pacing.answered(SupplierCode.TooManyRequests, Date.now());
    expect(pacing.rate.perSecond).toBe(0.5);
    pacing.answered(SupplierCode.Success, Date.now());
    expect(pacing.rate.perSecond).toBe(0.625);
  });
});

describe('an attempt whose slot is too far away', () => {
  it('ends unsent as a retryable failure that goes back to the queue within a second, however far its slot, and workflows wait it out', () => {
    const failure = toApplicationFailure('getBalance', new PaceTooLong(12_000));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const f = failure as ApplicationFailure;
    expect(f).toMatchObject({
      type: FailureType.Retryable,
      nonRetryable: false,
      nextRetryDelay: PACED_RETURN_MS,
    });
    expect(f.message).toContain('12 s away');
    const details = f.details?.[0] as SupplierFailureDetails;
    expect(details).toMatchObject({
      endpoint: 'getBalance',
      paced: true,
      retryAfterMs: PACED_RETURN_MS,
    });
    expect(isThrottled({ type: FailureType.Retryable, details })).toBe(true);
    expect(MAX_PACE_WAIT_MS).toBeLessThan(60_000);
  });
});
