/** Which dispute of the order's list a createDispute opened (pure; no Temporal needed). */
import { describe, expect, it } from 'vitest';
import type { DisputeSummary } from '../../src/dispute/activities.js';
import { CLOCK_SKEW_MS, matchCreated, type CreateSent } from '../../src/dispute/disputeMatch.js';

const SENT_AT = Date.parse('2026-11-25T12:00:00Z');
const sent: CreateSent = {
  businessDisputeId: 'df-1',
  reason: 'Damaged',
  lineItemIds: ['L1'],
  sentAt: SENT_AT,
};
const ours: DisputeSummary = {
  disputeId: '100',
  status: 'Processing',
  reason: 'Damaged',
  createdAt: SENT_AT + 2_000,
  lineItemIds: ['L1'],
};
const now = SENT_AT + 10_000;

describe('matchCreated', () => {
  it('takes the dispute of the same reason and lines opened since the create, not the first listed', () => {
    const otherReason = { ...ours, disputeId: '101', reason: 'Wrong item' };
    const earlier = { ...ours, disputeId: '99', createdAt: SENT_AT - CLOCK_SKEW_MS - 1 };
    const otherLines = { ...ours, disputeId: '102', lineItemIds: ['L2'] };
    expect(matchCreated([otherReason, earlier, otherLines, ours], sent, now)).toMatchObject({
      kind: 'one',
      id: '100',
    });
  });

  it('finds none while the list lags, and will not guess between several', () => {
    expect(matchCreated([{ ...ours, reason: 'Wrong item' }], sent, now)).toEqual({ kind: 'none' });
    expect(matchCreated([], sent, now)).toEqual({ kind: 'none' });
    expect(matchCreated([ours, { ...ours, disputeId: '103' }], sent, now)).toEqual({
      kind: 'several',
      ids: ['100', '103'],
    });
  });

  it("trusts the supplier's businessDisputeId when it gives one back", () => {
    const theirs = { ...ours, disputeId: '104', businessDisputeId: 'df-other' };
    expect(matchCreated([theirs], sent, now)).toEqual({ kind: 'none' });
    const byId = { ...ours, disputeId: '105', businessDisputeId: 'df-1', reason: 'renamed' };
    expect(matchCreated([ours, byId], sent, now)).toMatchObject({ kind: 'one', id: '105' });
  });
});
