/** The inbox's state rules on their own (pure code, no Temporal): dedup, bounds, retry schedule. */
import { describe, expect, it } from 'vitest';

import type { HoldRequest, ReplayResult } from '../../src/inbox/contract.js';
import {
  AUTO_REPLAY_DELAYS_MS,
  HELD_CHARS_LIMIT,
  HELD_LIMIT,
  InboxState,
  UNKNOWN_ORDER_TTL_MS,
  type DropCause,
} from '../../src/inbox/inboxState.js';

const T0 = Date.UTC(2026, 2, 1);

function request(id: string, autoReplay = false, params: unknown = {}): HoldRequest {
  return {
    event: {
      messageId: id,
      type: 'ORDER',
      messageType: 'UPDATE',
      params,
      receivedAt: new Date(T0).toISOString(),
    },
    reason: 'no order workflow',
    autoReplay,
  };
}

const emptyResult = (): ReplayResult => ({ delivered: [], closed: [], stillHeld: [] });

describe('InboxState', () => {
  it('holds a messageId once', () => {
    const inbox = new InboxState();
    expect(inbox.hold(request('a'), T0)).toBe(true);
    expect(inbox.hold(request('a'), T0 + 1)).toBe(false);
    expect(inbox.view()).toMatchObject({ received: 1, held: [{ event: { messageId: 'a' } }] });
  });

  it('schedules automatic tries only for visibility misses, three at most', () => {
    const inbox = new InboxState();
    inbox.hold(request('exact'), T0);
    inbox.hold(request('lagging', true), T0);
    expect(inbox.nextReplayAt()).toBe(T0 + AUTO_REPLAY_DELAYS_MS[0]);
    expect(inbox.due(T0 + AUTO_REPLAY_DELAYS_MS[0]).map((h) => h.event.messageId)).toEqual([
      'lagging',
    ]);
    let now = T0;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      now = inbox.nextReplayAt()!;
      inbox.settle(
        [{ messageId: 'lagging', outcome: 'held', reason: 'still not visible', autoReplay: true }],
        now,
        emptyResult(),
      );
    }
    expect(inbox.nextReplayAt()).toBeUndefined();
    expect(inbox.select(['lagging'])[0]).toMatchObject({ replays: 3, reason: 'still not visible' });
  });

  it('lets delivered and closed events go, and keeps the rest', () => {
    const inbox = new InboxState();
    for (const id of ['a', 'b', 'c']) inbox.hold(request(id), T0);
    const result = emptyResult();
    inbox.settle(
      [
        { messageId: 'a', outcome: 'delivered' },
        { messageId: 'b', outcome: 'closed' },
        { messageId: 'c', outcome: 'held', reason: 'no order', autoReplay: false },
      ],
      T0,
      result,
    );
    expect(result).toEqual({ delivered: ['a'], closed: ['b'], stillHeld: ['c'] });
    expect(inbox.view()).toMatchObject({ delivered: 1, held: [{ event: { messageId: 'c' } }] });
    // A delivered event sent again is still a duplicate.
    expect(inbox.hold(request('a'), T0)).toBe(false);
  });

  it('stays bounded in count and size, evicting the oldest', () => {
    const inbox = new InboxState();
    for (let i = 0; i < HELD_LIMIT + 5; i += 1) inbox.hold(request(`n${i}`), T0);
    expect(inbox.view().held).toHaveLength(HELD_LIMIT);
    expect(inbox.view().evicted).toBe(5);
    expect(inbox.view().held[0]?.event.messageId).toBe('n5');

    const big = new InboxState();
    const filler = 'x'.repeat(HELD_CHARS_LIMIT / 4);
    for (let i = 0; i < 6; i += 1) big.hold(request(`big${i}`, false, { filler }), T0);
    expect(JSON.stringify(big.view().held).length).toBeLessThanOrEqual(HELD_CHARS_LIMIT);
    expect(big.view().held.at(-1)?.event.messageId).toBe('big5');
  });

  it('reports every evicted event, by messageId and type', () => {
    const dropped: [string, string, DropCause][] = [];
    const inbox = new InboxState(
      {},
      { onDrop: (h, cause) => dropped.push([h.event.messageId, h.event.type, cause]) },
    );
    for (let i = 0; i < HELD_LIMIT + 2; i += 1) inbox.hold(request(`n${i}`), T0);
    expect(dropped).toEqual([
      ['n0', 'ORDER', 'evicted'],
      ['n1', 'ORDER', 'evicted'],
    ]);
    expect(inbox.view()).toMatchObject({ evicted: 2, expired: 0 });
  });

  it('lets events for orders dropflow never created go after UNKNOWN_ORDER_TTL_MS', () => {
    const dropped: [string, DropCause][] = [];
    const inbox = new InboxState(
      {},
      { onDrop: (h, cause) => dropped.push([h.event.messageId, cause]) },
    );
    inbox.hold({ ...request('stranger'), unknownOrder: true }, T0);
    inbox.hold(request('kept'), T0);
    const expiry = T0 + UNKNOWN_ORDER_TTL_MS;
    expect(inbox.select(['stranger'])[0]?.expiresAt).toBe(new Date(expiry).toISOString());
    expect(inbox.select(['kept'])[0]?.expiresAt).toBeUndefined();
    expect(inbox.nextExpiryAt()).toBe(expiry);

    expect(inbox.expire(expiry - 1)).toEqual([]);
    expect(inbox.expire(expiry).map((h) => h.event.messageId)).toEqual(['stranger']);
    expect(dropped).toEqual([['stranger', 'expired']]);
    expect(inbox.view()).toMatchObject({ expired: 1, held: [{ event: { messageId: 'kept' } }] });
    expect(inbox.nextExpiryAt()).toBeUndefined();
    // Still remembered: the supplier's retry of it is not held again.
    expect(inbox.hold({ ...request('stranger'), unknownOrder: true }, expiry)).toBe(false);
  });

  it('keeps the expiry from when the event was first held, and drops it once the miss changes', () => {
    const inbox = new InboxState();
    inbox.hold(request('a'), T0);
    const held = {
      messageId: 'a',
      outcome: 'held',
      reason: 'no order',
      autoReplay: false,
    } as const;
    inbox.settle([{ ...held, unknownOrder: true }], T0 + 1_000, emptyResult());
    expect(inbox.nextExpiryAt()).toBe(T0 + UNKNOWN_ORDER_TTL_MS);
    inbox.settle([{ ...held, unknownOrder: true }], T0 + 2_000, emptyResult());
    expect(inbox.nextExpiryAt()).toBe(T0 + UNKNOWN_ORDER_TTL_MS);
    inbox.settle([held], T0 + 3_000, emptyResult());
    expect(inbox.nextExpiryAt()).toBeUndefined();
    expect(inbox.select(['a'])[0]?.unknownOrder).toBeUndefined();
  });

  it('survives continue-as-new through its snapshot', () => {
    const inbox = new InboxState();
    inbox.hold(request('a', true), T0);
    inbox.hold({ ...request('b'), unknownOrder: true }, T0);
    const next = new InboxState(JSON.parse(JSON.stringify(inbox.snapshot())) as never);
    expect(next.hold(request('a'), T0)).toBe(false);
    expect(next.view()).toEqual(inbox.view());
    expect(next.nextReplayAt()).toBe(inbox.nextReplayAt());
    expect(next.nextExpiryAt()).toBe(inbox.nextExpiryAt());
  });

  it('discards named events', () => {
    const inbox = new InboxState();
    for (const id of ['a', 'b']) inbox.hold(request(id), T0);
    expect(inbox.discard(['b', 'zz'])).toEqual(['b']);
    expect(inbox.view()).toMatchObject({ discarded: 1, held: [{ event: { messageId: 'a' } }] });
  });
});
