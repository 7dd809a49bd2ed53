/**
 * The worker's buffer of ready orders (checkout/readyBuffer.ts): one send per coordinator per
 * flush, each caller settled by the send that carried its order.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readyBuffer } from '../../src/checkout/readyBuffer.js';

describe('the ready buffer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an order after a quiet period goes at once; those that follow wait for the end of the period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const sent: number[][] = [];
    const add = readyBuffer<number>((_key, items) => {
      sent.push(items);
      return Promise.resolve();
    }, 1_000);
    const lone = add('a', 1);
    await vi.advanceTimersByTimeAsync(0);
    await lone;
    expect(sent).toEqual([[1]]);
    const next = [add('a', 2)];
    await vi.advanceTimersByTimeAsync(300);
    next.push(add('a', 3));
    await vi.advanceTimersByTimeAsync(699);
    expect(sent).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(next);
    expect(sent).toEqual([[1], [2, 3]]);
  });

  it('sends what each coordinator gathered once, and at once when full', async () => {
    const sent: [string, number[]][] = [];
    const add = readyBuffer<number>(
      (key, items) => {
        sent.push([key, items]);
        return Promise.resolve();
      },
      50,
      3,
    );
    await Promise.all([add('a', 1), add('b', 2), add('a', 3), add('a', 4), add('a', 5)]);
    expect(sent).toEqual([
      ['a', [1, 3, 4]],
      ['b', [2]],
      ['a', [5]],
    ]);
  });

  it('a failed send fails every order it carried; their next try goes in the next send', async () => {
    let fail = true;
    const sent: number[][] = [];
    const add = readyBuffer<number>((_key, items) => {
      if (fail) return Promise.reject(new Error('signal refused'));
      sent.push(items);
      return Promise.resolve();
    }, 10);
    const first = await Promise.allSettled([add('a', 1), add('a', 2)]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await Promise.all([add('a', 1), add('a', 2)]);
    expect(sent).toEqual([[1, 2]]);
  });
});
