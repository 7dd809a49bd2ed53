/**
 * Orders in flight survive every deploy: each recorded history (test/replay/histories) replays
 * through today's workflow code without a non-determinism error. A change that would make a
 * running order take another path than its history recorded fails here, before it ships; see
 * docs/changing-workflows.md for how to make such a change safely. replayTraced.slow.test.ts
 * replays them again with tracing on, in the slow suite.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { recordedHistories } from '../support/replay.js';

const { recorded, replayAll } = await recordedHistories();
let errors: unknown[] = [];

beforeAll(async () => {
  errors = await replayAll(false);
}, 2_400_000);

describe('recorded histories replay through the current workflow code', () => {
  it('has histories of every workflow type', () => {
    const types = new Set(recorded.map((r) => r.recorded.workflowType));
    expect([...types].sort()).toEqual(
      [
        'accountCheckout',
        'catalogueEvents',
        'disputeOrder',
        'fulfillOrder',
        'supplierSession',
        'trackingSweep',
        'trackingSweeper',
        'webhookInbox',
      ].sort(),
    );
  });

  it('replayed every history', () => {
    expect(errors).toHaveLength(recorded.length);
  });

  it.each(recorded.map((r, i) => [r.file, r, i] as const))('%s', (_file, r, i) => {
    expect(errors[i], `${r.recorded.scenario}: ${String(errors[i])}`).toBeUndefined();
  });
});
