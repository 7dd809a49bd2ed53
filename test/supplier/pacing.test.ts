/**
 * In-process pacing of an account (supplier/pacer.ts, adaptiveRate.ts, pacing.ts) on a fake clock:
 * slots exactly 1/rate apart, by priority; a wait given up or too long is never done; each 1600200
 * halves the rate and accepted calls bring it back step by step.
 */
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_PACE_WAIT_MS, toApplicationFailure } from '../../src/supplier/supplierCall.js';
import { FailureType, type SupplierFailureDetails } from '../../src/supplier/failureDetails.js';
import { AdaptiveRate } from '../../src/supplier/adaptiveRate.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { Pacer, PaceTooLong } from '../../src/supplier/pacer.js';
import { AccountPacing } from '../../src/supplier/pacing.js';
import { isThrottled } from '../../src/durable/failures.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

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
  it('ends unsent as a retryable failure that comes back when the slot is near, and workflows wait it out', () => {
    const failure = toApplicationFailure('getBalance', new PaceTooLong(7_000));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const f = failure as ApplicationFailure;
    expect(f).toMatchObject({
      type: FailureType.Retryable,
      nonRetryable: false,
      nextRetryDelay: 7_000,
    });
    const details = f.details?.[0] as SupplierFailureDetails;
    expect(details).toMatchObject({ endpoint: 'getBalance', paced: true, retryAfterMs: 7_000 });
    expect(isThrottled({ type: FailureType.Retryable, details })).toBe(true);
    expect(MAX_PACE_WAIT_MS).toBeLessThan(60_000);
  });
});
