/**
 * The recorded histories replay with tracing on too: its workflow interceptors are bundled, and
 * they must not change a command (docs/tracing.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { recordedHistories } from '../support/replay.js';

const { recorded, replayAll } = await recordedHistories();
let errors: unknown[] = [];

beforeAll(async () => {
  errors = await replayAll(true);
}, 2_400_000);

describe('recorded histories replay with tracing on', () => {
  it('replayed every history', () => {
    expect(errors).toHaveLength(recorded.length);
  });

  it.each(recorded.map((r, i) => [r.file, r, i] as const))('%s', (_file, r, i) => {
    expect(errors[i], `${r.recorded.scenario}: ${String(errors[i])}`).toBeUndefined();
  });
});
